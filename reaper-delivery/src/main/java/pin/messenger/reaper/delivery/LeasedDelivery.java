package pin.messenger.reaper.delivery;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One step of a leased delivery, the same for the Kafka relay and the recorder dispatcher: claim a
 * batch under a lease (one statement, committed at once), send with no transaction open, then write
 * every outcome guarded by the lease owner. What differs is the {@link LeasedTable} and the {@link
 * Sender}.
 *
 * <p>A row whose lease was lost (this step outlived its lease and another instance claimed the row)
 * is never counted as delivered, failed or released: it is logged once at WARN and counted in
 * {@code leaseLost} and by {@link DeliveryObserver#leaseLost}. The other instance owns it now.
 */
final class LeasedDelivery<R extends LeasedRow> {
  private static final Logger log = LoggerFactory.getLogger(LeasedDelivery.class);

  /**
   * Sends one claimed batch; returns one outcome per row, in the rows' order. Nothing may still be
   * in flight at {@code deadlineNanos} (a {@link System#nanoTime()} value): a row not sent or not
   * acknowledged by then is {@code UNAVAILABLE} (or {@code FAILED} for a call that may have
   * happened).
   */
  @FunctionalInterface
  interface Sender<R> {
    List<SendOutcome> send(List<R> rows, long deadlineNanos);
  }

  /**
   * What one step did. {@code delivered}, {@code failed} (incl. {@code gaveUp}) count rows whose
   * outcome was written; {@code unavailable} counts rows the other side could not be reached for;
   * {@code leaseLost} rows whose outcome was not written because another instance holds them now.
   */
  record Result(
      int claimed, int delivered, int failed, int gaveUp, int unavailable, int leaseLost) {
    static final Result NOTHING = new Result(0, 0, 0, 0, 0, 0);
  }

  private final LeasedTable<R> table;
  private final LeasedRows<R> rows;
  private final Sender<R> sender;
  private final int batchSize;
  private final Duration lease;
  private final int maxAttempts;
  private final Backoff backoff;
  private final DeliveryObserver observer;

  LeasedDelivery(
      LeasedRows<R> rows, Sender<R> sender, LeaseOptions options, DeliveryObserver observer) {
    this.table = rows.table();
    this.rows = rows;
    this.sender = sender;
    this.batchSize = options.batchSize();
    this.lease = options.lease();
    this.maxAttempts = options.maxAttempts();
    this.backoff = options.backoff();
    this.observer = observer == null ? DeliveryObserver.NONE : observer;
  }

  /** Claims, sends and settles one batch. */
  Result step(Instant now) throws SQLException {
    return step(now, Long.MAX_VALUE);
  }

  /**
   * Claims, sends and settles one batch; the send ends by {@code passDeadlineNanos} (a {@link
   * System#nanoTime()} value, e.g. the end of {@code run-once}'s delivery pass) and in any case
   * early enough that the settle's statements fit in the lease: a step never outlives its lease.
   */
  Result step(Instant now, long passDeadlineNanos) throws SQLException {
    long started = System.nanoTime();
    List<R> claimed = rows.claim(now, batchSize, lease);
    if (claimed.isEmpty()) {
      return Result.NOTHING;
    }
    long leaseDeadline = started + LeaseBudget.sendWindow(lease).toNanos();
    List<SendOutcome> outcomes = sender.send(claimed, earlier(leaseDeadline, passDeadlineNanos));
    List<LeaseOutcome.Delivered> delivered = new ArrayList<>();
    List<LeaseOutcome.Failure> failures = new ArrayList<>();
    List<LeaseOutcome.Released> released = new ArrayList<>();
    for (int i = 0; i < claimed.size(); i++) {
      R row = claimed.get(i);
      SendOutcome o = outcomes.get(i);
      switch (o.kind()) {
        case DELIVERED -> delivered.add(new LeaseOutcome.Delivered(row.id(), o.note(), o.at()));
        case FAILED ->
            failures.add(
                new LeaseOutcome.Failure(
                    row.id(), o.note(), now.plus(backoff.after(row.attempts() + 1)), false));
        case GIVE_UP ->
            failures.add(
                new LeaseOutcome.Failure(
                    row.id(), o.note(), now.plus(backoff.after(row.attempts() + 1)), true));
        case UNAVAILABLE -> released.add(new LeaseOutcome.Released(row.id(), o.note()));
      }
    }
    LeaseOutcome.Settled settled = rows.settle(now, delivered, failures, released, maxAttempts);
    for (int i = 0; i < claimed.size(); i++) {
      logOutcome(claimed.get(i), outcomes.get(i), settled);
    }
    if (!settled.lost().isEmpty()) {
      observer.leaseLost(table.name(), settled.lost().size());
    }
    return new Result(
        claimed.size(),
        settled.delivered().size(),
        settled.failed().size(),
        settled.gaveUp().size(),
        released.size(),
        settled.lost().size());
  }

  /** The earlier of two {@link System#nanoTime()} deadlines (overflow-safe). */
  static long earlier(long a, long b) {
    return a - b < 0 ? a : b;
  }

  private void logOutcome(R row, SendOutcome outcome, LeaseOutcome.Settled settled) {
    UUID id = row.id();
    Map<UUID, SendOutcome.Kind> lost = settled.lost();
    if (lost.containsKey(id)) {
      line(log.atWarn(), row)
          .addKeyValue("leaseOwner", rows.owner())
          .addKeyValue("outcome", lost.get(id))
          .addKeyValue("note", outcome.note())
          .log(table.log().leaseLost());
    } else if (settled.gaveUp().contains(id)) {
      line(log.atError(), row)
          .addKeyValue("attempts", row.attempts() + 1)
          .addKeyValue("reason", outcome.note())
          .log(table.log().gaveUp());
    } else if (settled.failed().contains(id)) {
      line(log.atWarn(), row)
          .addKeyValue("attempts", row.attempts() + 1)
          .addKeyValue("reason", outcome.note())
          .log(table.log().failed());
    } else if (settled.delivered().contains(id)) {
      LoggingEventBuilder b = line(log.atLevel(table.log().deliveredLevel()), row);
      if (outcome.note() != null) {
        b = b.addKeyValue("note", outcome.note());
      }
      b.log(table.log().delivered());
    }
    // Released rows: the sender logs the outage as a state change, not a line per row.
  }

  private LoggingEventBuilder line(LoggingEventBuilder b, R row) {
    table.log().ids().accept(row, b);
    return b;
  }
}
