package pin.messenger.reaper.delivery;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.BiConsumer;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;
import pin.messenger.reaper.schema.DeliveryTables;

/**
 * What one leased delivery is made of besides its send, in parts a reader can take one at a time:
 * the table (and so what a pending row is), the claim (which pending rows, in which order, read
 * how), how attempts are counted, and the log lines of its outcomes. Every leased table has {@code
 * id}, {@code attempts}, {@code last_error}, {@code next_attempt_at}, {@code locked_until} and
 * {@code locked_by}.
 *
 * @param name short name of the delivery: the lease owner's prefix and the observer's tag
 * @param table the table, its done and gave-up columns, and so what a pending row is
 * @param claim which pending rows a step claims and how it reads them
 * @param attempts what {@code attempts} counts
 * @param log the log lines of the rows' outcomes
 */
record LeasedTable<R extends LeasedRow>(
    String name,
    DeliveryTables.Table table,
    Claim<R> claim,
    AttemptCount attempts,
    LogEvents<R> log) {

  /**
   * Which pending rows a step claims beyond "due and not leased", in which order, and how it reads
   * them. All SQL is over the alias {@code o} of the table.
   *
   * @param condition an extra predicate starting with {@code AND} (e.g. "head of its key"), or ""
   * @param order the claim's {@code ORDER BY}, also the send order (its columns must be among the
   *     returned ones)
   * @param columns the claim's {@code RETURNING} list
   * @param reader reads one claimed row
   */
  record Claim<R>(String condition, String order, String columns, RowReader<R> reader) {}

  /** What a row's {@code attempts} counts. */
  enum AttemptCount {
    /** Failed sends only: a delivered row keeps the count of the failures before it. */
    FAILURES,
    /** Every send, the one that delivered it too. */
    EVERY_SEND;

    /** What a delivery adds to {@code attempts}. */
    int onDelivery() {
      return this == EVERY_SEND ? 1 : 0;
    }
  }

  /**
   * The per-row log lines of a step's outcomes.
   *
   * @param ids adds a row's ids to a line
   * @param deliveredLevel level of the delivered line
   * @param delivered event of a delivered row
   * @param failed event of a row that failed and will be retried
   * @param gaveUp event of a row given up
   * @param leaseLost event of a row whose lease another instance took over
   */
  record LogEvents<R>(
      BiConsumer<R, LoggingEventBuilder> ids,
      Level deliveredLevel,
      String delivered,
      String failed,
      String gaveUp,
      String leaseLost) {}

  /** Reads the current row of a claim's result. */
  @FunctionalInterface
  interface RowReader<R> {
    R read(ResultSet rs) throws SQLException;
  }
}
