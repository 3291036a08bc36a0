package pin.messenger.reaper.delivery;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.InvalidOptionsException;

/**
 * Options of the recorder-stop dispatcher ({@code reaper.recorder.*}).
 *
 * @param baseUrl the media stack's recorder API; null → dispatch is off and requests are kept
 * @param connectTimeout TCP connect timeout of one call
 * @param readTimeout time to the response of one call; the calls of a step run concurrently and are
 *     awaited for at most connect-timeout + read-timeout, which with the step's statements must fit
 *     in the lease
 * @param batchSize requests claimed per step
 * @param pollInterval wait between steps when there is nothing to send
 * @param lease how long a claim is this dispatcher's
 * @param maxAttempts failed calls after which a request is given up (recording-finalize-retry takes
 *     over)
 * @param retryBase first wait after a failed call, doubling per failure
 * @param retryCap longest wait between two calls for one request
 */
public record RecorderOptions(
    @Nullable URI baseUrl,
    Duration connectTimeout,
    Duration readTimeout,
    int batchSize,
    Duration pollInterval,
    Duration lease,
    int maxAttempts,
    Duration retryBase,
    Duration retryCap) {

  public RecorderOptions {
    List<String> errors = new ArrayList<>();
    if (baseUrl != null
        && (baseUrl.getScheme() == null
            || !(baseUrl.getScheme().equals("http") || baseUrl.getScheme().equals("https"))
            || baseUrl.getHost() == null)) {
      errors.add(
          "reaper.recorder.base-url must be an absolute http(s) URL but was '" + baseUrl + "'");
    }
    RelayOptions.positive(errors, "reaper.recorder.connect-timeout", connectTimeout);
    RelayOptions.positive(errors, "reaper.recorder.read-timeout", readTimeout);
    RelayOptions.positive(errors, "reaper.recorder.poll-interval", pollInterval);
    RelayOptions.positive(errors, "reaper.recorder.lease", lease);
    RelayOptions.positive(errors, "reaper.recorder.retry-base", retryBase);
    RelayOptions.positive(errors, "reaper.recorder.retry-cap", retryCap);
    if (batchSize < 1 || batchSize > 1000) {
      errors.add("reaper.recorder.batch-size must be between 1 and 1000 but was " + batchSize);
    }
    if (maxAttempts < 1) {
      errors.add("reaper.recorder.max-attempts must be at least 1 but was " + maxAttempts);
    }
    if (retryBase != null && retryCap != null && retryCap.compareTo(retryBase) < 0) {
      errors.add(
          "reaper.recorder.retry-cap must be at least reaper.recorder.retry-base ("
              + retryBase
              + ") but was "
              + retryCap);
    }
    if (isPositive(lease) && isPositive(connectTimeout) && isPositive(readTimeout)) {
      // The calls of a batch run concurrently and are awaited against one deadline of
      // connect-timeout + read-timeout, so that is the send's bound whatever the batch size.
      LeaseBudget.requireLeaseCoversStep(
          errors,
          "reaper.recorder.lease",
          lease,
          connectTimeout.plus(readTimeout),
          "reaper.recorder.connect-timeout ("
              + connectTimeout
              + ") + reaper.recorder.read-timeout ("
              + readTimeout
              + ")");
    }
    if (!errors.isEmpty()) {
      throw new InvalidOptionsException(errors);
    }
  }

  public static RecorderOptions defaults(@Nullable URI baseUrl) {
    return new RecorderOptions(
        baseUrl,
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        50,
        Duration.ofSeconds(1),
        Duration.ofMinutes(1),
        10,
        Duration.ofSeconds(1),
        Duration.ofMinutes(5));
  }

  public boolean enabled() {
    return baseUrl != null;
  }

  /**
   * Server-side bound of each dispatcher statement: derived from the lease, see {@link
   * LeaseBudget#statementTimeout}.
   */
  public Duration statementTimeout() {
    return LeaseBudget.statementTimeout(lease);
  }

  /** The longest the calls of one step are awaited: every call is bounded by this. */
  public Duration callBound() {
    return connectTimeout.plus(readTimeout);
  }

  private static boolean isPositive(Duration d) {
    return d != null && !d.isNegative() && !d.isZero();
  }
}
