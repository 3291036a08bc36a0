package pin.messenger.reaper.delivery;

import static pin.messenger.reaper.core.OptionChecks.capNotBelowBase;
import static pin.messenger.reaper.core.OptionChecks.isPositive;
import static pin.messenger.reaper.core.OptionChecks.positive;
import static pin.messenger.reaper.core.OptionChecks.throwIfAny;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Options of the Kafka relay ({@code reaper.relay.*}).
 *
 * @param batchSize rows claimed per step (one per message key: the head of each key)
 * @param pollInterval wait between steps when there is nothing to send
 * @param lease how long a claim is this relay's; a crashed relay's rows are taken over after it
 * @param maxAttempts permanent failures (the broker refuses the record itself) before a row is
 *     quarantined
 * @param retryBase first wait after a failure, doubling per failure
 * @param retryCap longest wait between two tries (of a row, or of the whole relay while the broker
 *     is down)
 * @param retention published rows are deleted after this
 * @param retentionBatch rows deleted per statement by the retention sweep
 * @param source CloudEvents {@code source} attribute
 * @param sendTimeout longest wait for the broker's acknowledgements of one step's batch, counted
 *     from the step's first send (at least {@value #MIN_SEND_TIMEOUT_SECONDS} s); the producer's
 *     own timeouts derive from it (see {@link #maxBlock()}). The lease must exceed it plus the
 *     step's statements (see {@link #statementTimeout()})
 * @param outageLogInterval while the broker stays unreachable, one "still unreachable" line per
 *     this interval (the outage's start and end are logged once each)
 */
public record RelayOptions(
    int batchSize,
    Duration pollInterval,
    Duration lease,
    int maxAttempts,
    Duration retryBase,
    Duration retryCap,
    Duration retention,
    int retentionBatch,
    String source,
    Duration sendTimeout,
    Duration outageLogInterval)
    implements LeaseOptions {

  public static final String DEFAULT_SOURCE = "/pin/messenger/conference-room-reaper";

  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

  public static final Duration DEFAULT_OUTAGE_LOG_INTERVAL = Duration.ofMinutes(5);

  /** The producer's timeouts are derived from the send timeout in whole seconds and halves. */
  static final long MIN_SEND_TIMEOUT_SECONDS = 1;

  /**
   * The longest {@code producer.send()} may block for the broker's metadata: a step stops sending
   * after the first such failure, so this is what a step costs while the broker is down.
   */
  static final Duration MAX_BLOCK_CAP = Duration.ofSeconds(2);

  public RelayOptions {
    List<String> errors = new ArrayList<>();
    if (batchSize < 1 || batchSize > 10_000) {
      errors.add("reaper.relay.batch-size must be between 1 and 10000 but was " + batchSize);
    }
    if (maxAttempts < 1) {
      errors.add("reaper.relay.max-attempts must be at least 1 but was " + maxAttempts);
    }
    if (retentionBatch < 1) {
      errors.add("reaper.relay.retention-batch must be at least 1 but was " + retentionBatch);
    }
    positive(errors, "reaper.relay.poll-interval", pollInterval);
    positive(errors, "reaper.relay.lease", lease);
    positive(errors, "reaper.relay.retry-base", retryBase);
    positive(errors, "reaper.relay.retry-cap", retryCap);
    positive(errors, "reaper.relay.retention", retention);
    positive(errors, "reaper.relay.outage-log-interval", outageLogInterval);
    capNotBelowBase(
        errors, "reaper.relay.retry-cap", retryCap, "reaper.relay.retry-base", retryBase);
    if (sendTimeout == null
        || sendTimeout.compareTo(Duration.ofSeconds(MIN_SEND_TIMEOUT_SECONDS)) < 0) {
      errors.add(
          "reaper.relay.send-timeout must be at least "
              + MIN_SEND_TIMEOUT_SECONDS
              + "s but was "
              + sendTimeout);
    } else if (isPositive(lease)) {
      // The acknowledgements of a whole batch are awaited against one deadline, so a step's send
      // is bounded by one send timeout, not batch-size of them.
      LeaseBudget.requireLeaseCoversStep(
          errors,
          "reaper.relay.lease",
          lease,
          sendTimeout,
          "reaper.relay.send-timeout (" + sendTimeout + ")");
    }
    if (source == null || source.isBlank()) {
      errors.add("reaper.relay.source must not be blank but was '" + source + "'");
    }
    throwIfAny(errors);
  }

  public static RelayOptions defaults() {
    return new RelayOptions(
        100,
        Duration.ofSeconds(1),
        Duration.ofMinutes(2),
        10,
        Duration.ofSeconds(1),
        Duration.ofMinutes(5),
        Duration.ofDays(7),
        1000,
        DEFAULT_SOURCE,
        DEFAULT_SEND_TIMEOUT,
        DEFAULT_OUTAGE_LOG_INTERVAL);
  }

  /**
   * The producer's {@code max.block.ms}: a quarter of the send timeout, at most {@link
   * #MAX_BLOCK_CAP}. {@code send()} blocks this long only when the broker's metadata is not
   * available, and the step then stops sending.
   */
  public Duration maxBlock() {
    Duration quarter = sendTimeout.dividedBy(4);
    return quarter.compareTo(MAX_BLOCK_CAP) < 0 ? quarter : MAX_BLOCK_CAP;
  }

  /**
   * Server-side bound of each relay statement (claim, settle, sweep, stats): derived from the
   * lease, see {@link LeaseBudget#statementTimeout}.
   */
  public Duration statementTimeout() {
    return LeaseBudget.statementTimeout(lease);
  }
}
