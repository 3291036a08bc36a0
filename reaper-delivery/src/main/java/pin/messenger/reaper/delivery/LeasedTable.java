package pin.messenger.reaper.delivery;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.BiConsumer;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;
import pin.messenger.reaper.schema.DeliveryTables;

/**
 * What one leased delivery is made of besides its send: the table and its columns, how a claimed
 * row is read, and the names of its log events and its meter tag. Every leased table has {@code
 * id}, {@code attempts}, {@code last_error}, {@code next_attempt_at}, {@code locked_until} and
 * {@code locked_by}.
 *
 * @param name short name of the delivery: the lease owner's prefix and the observer's tag
 * @param table the table, its done and gave-up columns, and so what a pending row is
 * @param claimable an extra claim predicate over alias {@code o} (e.g. "head of its key"), or ""
 * @param claimOrder the claim's {@code ORDER BY} over alias {@code o}, also the send order (its
 *     columns must be among the claimed ones)
 * @param claimedColumns the claim's {@code RETURNING} list over alias {@code o}
 * @param deliveryCountsAsAttempt whether a delivery also counts in {@code attempts}
 * @param read reads one claimed row
 * @param logFields adds a row's ids to a log line
 * @param deliveredLevel level of the per-row delivered line
 * @param deliveredEvent log event of a delivered row
 * @param failedEvent log event of a row that failed and will be retried
 * @param gaveUpEvent log event of a row given up
 * @param leaseLostEvent log event of a row whose lease another instance took over
 */
record LeasedTable<R extends LeasedRow>(
    String name,
    DeliveryTables.Table table,
    String claimable,
    String claimOrder,
    String claimedColumns,
    boolean deliveryCountsAsAttempt,
    RowReader<R> read,
    BiConsumer<R, LoggingEventBuilder> logFields,
    Level deliveredLevel,
    String deliveredEvent,
    String failedEvent,
    String gaveUpEvent,
    String leaseLostEvent) {

  /** Reads the current row of a claim's result. */
  @FunctionalInterface
  interface RowReader<R> {
    R read(ResultSet rs) throws SQLException;
  }
}
