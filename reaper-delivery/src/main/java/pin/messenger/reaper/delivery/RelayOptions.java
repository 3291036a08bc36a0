package pin.messenger.reaper.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import pin.messenger.reaper.core.InvalidOptionsException;

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
    String source) {

  public static final String DEFAULT_SOURCE = "/pin/messenger/conference-room-reaper";

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
    if (retryBase != null && retryCap != null && retryCap.compareTo(retryBase) < 0) {
      errors.add(
          "reaper.relay.retry-cap must be at least reaper.relay.retry-base ("
              + retryBase
              + ") but was "
              + retryCap);
    }
    if (source == null || source.isBlank()) {
      errors.add("reaper.relay.source must not be blank but was '" + source + "'");
    }
    if (!errors.isEmpty()) {
      throw new InvalidOptionsException(errors);
    }
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
        DEFAULT_SOURCE);
  }

  /**
   * Default of {@code reaper.relay.send-timeout}, the longest wait for the broker's acknowledgement
   * (the relay takes it beside these options).
   */
  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Validates {@code reaper.relay.send-timeout}: at least 1 s, the producer's timeouts derive from
   * it.
   *
   * @return the value, when valid
   * @throws InvalidOptionsException naming the property and its value
   */
  public static Duration checkSendTimeout(Duration sendTimeout) {
    if (sendTimeout == null || sendTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new InvalidOptionsException(
          List.of("reaper.relay.send-timeout must be at least 1s but was " + sendTimeout));
    }
    return sendTimeout;
  }

  static void positive(List<String> errors, String property, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      errors.add(property + " must be positive but was " + value);
    }
  }
}
