package pin.messenger.reaper.delivery;

import java.time.Duration;

/** Exponential backoff: {@code base × 2^(attempt-1)}, capped. Pure. */
public record Backoff(Duration base, Duration cap) {

  public Backoff {
    if (base == null || base.isNegative() || base.isZero()) {
      throw new IllegalArgumentException("backoff base must be positive but was " + base);
    }
    if (cap == null || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException(
          "backoff cap must be at least the base (" + base + ") but was " + cap);
    }
  }

  /** The wait after the {@code attempt}-th consecutive failure (1-based). */
  public Duration after(int attempt) {
    int shift = Math.max(0, Math.min(attempt - 1, 30));
    long millis = base.toMillis() << shift;
    return millis <= 0 || millis > cap.toMillis() ? cap : Duration.ofMillis(millis);
  }
}
