package pin.messenger.reaper.delivery;

import java.time.Duration;
import java.util.List;

/**
 * How a delivery step's time is bounded under its lease, written once for both deliveries. A step
 * is one claim statement, the send, then one settle transaction of at most three statements
 * (delivered, failed, released): {@value #STATEMENTS_PER_STEP} statements, each bounded by the
 * statement timeout. The lease must exceed that whole bound, so a step that runs into every timeout
 * still writes its outcome before another instance may take its rows over.
 */
final class LeaseBudget {

  /**
   * The longest a delivery statement may run. They touch at most a batch of rows by primary key or
   * through a partial index and take milliseconds; this bounds a stalled database.
   */
  static final Duration MAX_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  /** One claim, and the settle's delivered, failed and released updates. */
  static final int STATEMENTS_PER_STEP = 4;

  /** The statement timeout never takes more than this share of the lease. */
  static final int LEASE_SHARE_PER_STATEMENT = 10;

  private LeaseBudget() {}

  /**
   * The statement timeout of a delivery with this lease: {@link #MAX_STATEMENT_TIMEOUT}, or a tenth
   * of a shorter lease (at least 1 ms, PostgreSQL's unit).
   */
  static Duration statementTimeout(Duration lease) {
    Duration share = lease.dividedBy(LEASE_SHARE_PER_STATEMENT);
    Duration t = share.compareTo(MAX_STATEMENT_TIMEOUT) < 0 ? share : MAX_STATEMENT_TIMEOUT;
    return t.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : t;
  }

  /** The longest one step can take when its send is bounded by {@code send}. */
  static Duration stepBound(Duration lease, Duration send) {
    return send.plus(statementTimeout(lease).multipliedBy(STATEMENTS_PER_STEP));
  }

  /**
   * How long after a step's start its send must have ended so that the settle's statements still
   * fit in the lease: the lease less {@value #STATEMENTS_PER_STEP} statement timeouts (the claim
   * before the send, the settle after it). The send's own bound is normally shorter (the options
   * check that); this is the step deadline that holds whatever the other side does.
   */
  static Duration sendWindow(Duration lease) {
    return lease.minus(statementTimeout(lease).multipliedBy(STATEMENTS_PER_STEP));
  }

  /**
   * Adds a violation unless the lease exceeds the step bound; {@code sendExpression} names the
   * properties that bound the send, e.g. {@code reaper.relay.send-timeout (PT30S)}.
   */
  static void requireLeaseCoversStep(
      List<String> errors,
      String leaseProperty,
      Duration lease,
      Duration send,
      String sendExpression) {
    Duration bound = stepBound(lease, send);
    if (lease.compareTo(bound) <= 0) {
      errors.add(
          leaseProperty
              + " must exceed one delivery step: "
              + sendExpression
              + " + "
              + STATEMENTS_PER_STEP
              + " statements × the statement timeout ("
              + statementTimeout(lease)
              + ") = "
              + bound
              + ", but was "
              + lease);
    }
  }
}
