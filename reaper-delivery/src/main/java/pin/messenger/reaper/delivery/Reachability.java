package pin.messenger.reaper.delivery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the other side of a delivery answers, logged as state changes only: one WARN when it
 * becomes unreachable, one WARN every {@code stillDownEvery} while it stays so, one INFO when it is
 * back (with how long it was gone). Never a line per attempt. Reported to the observer on every
 * change, for a gauge.
 */
final class Reachability {
  private static final Logger log = LoggerFactory.getLogger(Reachability.class);

  private final String target;
  private final Clock clock;
  private final Duration stillDownEvery;
  private final DeliveryObserver observer;
  private @Nullable Boolean up;
  private @Nullable Instant downSince;
  private @Nullable Instant lastLine;
  private int failedSteps;

  Reachability(String target, Clock clock, Duration stillDownEvery, DeliveryObserver observer) {
    this.target = target;
    this.clock = clock;
    this.stillDownEvery = stillDownEvery;
    this.observer = observer == null ? DeliveryObserver.NONE : observer;
  }

  /** A step reached the other side (it acknowledged or refused a record). */
  synchronized void reached() {
    if (Boolean.TRUE.equals(up)) {
      return;
    }
    if (downSince != null) {
      log.atInfo()
          .addKeyValue("target", target)
          .addKeyValue("downForMs", Duration.between(downSince, clock.instant()).toMillis())
          .addKeyValue("failedSteps", failedSteps)
          .log(target + " reachable again");
    }
    up = true;
    downSince = null;
    failedSteps = 0;
    observer.brokerReachable(true);
  }

  /** A step could not reach the other side. */
  synchronized void unreachable(String reason) {
    Instant now = clock.instant();
    failedSteps++;
    if (!Boolean.FALSE.equals(up)) {
      up = false;
      downSince = now;
      lastLine = now;
      observer.brokerReachable(false);
      log.atWarn()
          .addKeyValue("target", target)
          .addKeyValue("reason", reason)
          .log(target + " unreachable; delivery paused, rows kept, retrying with backoff");
    } else if (Duration.between(lastLine, now).compareTo(stillDownEvery) >= 0) {
      lastLine = now;
      log.atWarn()
          .addKeyValue("target", target)
          .addKeyValue("downForMs", Duration.between(downSince, now).toMillis())
          .addKeyValue("failedSteps", failedSteps)
          .addKeyValue("reason", reason)
          .log(target + " still unreachable");
    }
  }

  /** True while the last step could not reach the other side. */
  synchronized boolean down() {
    return Boolean.FALSE.equals(up);
  }
}
