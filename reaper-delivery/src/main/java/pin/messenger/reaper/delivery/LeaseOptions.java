package pin.messenger.reaper.delivery;

import java.time.Duration;

/**
 * What the relay's and the recorder dispatcher's options have in common: how a {@link
 * LeasedDelivery} claims, leases and retries its rows ({@link RelayOptions}, {@link
 * RecorderOptions}).
 */
interface LeaseOptions {
  int batchSize();

  Duration lease();

  int maxAttempts();

  Duration retryBase();

  Duration retryCap();

  /** The wait after a failure: {@link #retryBase()}, doubling, at most {@link #retryCap()}. */
  default Backoff backoff() {
    return new Backoff(retryBase(), retryCap());
  }
}
