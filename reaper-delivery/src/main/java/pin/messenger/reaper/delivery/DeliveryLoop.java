package pin.messenger.reaper.delivery;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one delivery step after another on its own thread: again at once after a full batch, after
 * the poll interval when idle (or sooner when woken, e.g. right after the reaper committed new
 * rows), and after a growing backoff while the other side is down. Never dies on an exception.
 */
public final class DeliveryLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeliveryLoop.class);

  /** What one step found. */
  public enum Outcome {
    /** A full batch was handled: there may be more, run again now. */
    MORE,
    /** Nothing (more) to do: wait for the poll interval or a wake-up. */
    IDLE,
    /** The other side is unreachable: back off. */
    UNAVAILABLE
  }

  /** One step of delivery work. */
  @FunctionalInterface
  public interface Step {
    Outcome run(java.time.Instant now) throws Exception;
  }

  private final String name;
  private final Step step;
  private final Clock clock;
  private final Duration pollInterval;
  private final Backoff backoff;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean woken;
  private volatile boolean stopping;
  private @Nullable Thread thread;
  private int consecutiveFailures;

  public DeliveryLoop(String name, Step step, Clock clock, Duration pollInterval, Backoff backoff) {
    this.name = name;
    this.step = step;
    this.clock = clock;
    this.pollInterval = pollInterval;
    this.backoff = backoff;
  }

  public synchronized void start() {
    if (thread != null) {
      return;
    }
    thread = new Thread(this::loop, name);
    thread.start();
    log.atInfo()
        .addKeyValue("loop", name)
        .addKeyValue("pollInterval", pollInterval)
        .log("delivery loop started");
  }

  /** Ends the current wait early (new rows were committed). */
  public void wakeUp() {
    lock.lock();
    try {
      woken = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void loop() {
    while (!stopping) {
      Duration wait;
      try {
        Outcome outcome = step.run(clock.instant());
        if (outcome == Outcome.UNAVAILABLE) {
          consecutiveFailures++;
          wait = backoff.after(consecutiveFailures);
          // Debug only: the step logs the outage as state changes (down, still down, back).
          log.atDebug()
              .addKeyValue("loop", name)
              .addKeyValue("consecutiveFailures", consecutiveFailures)
              .addKeyValue("retryIn", wait)
              .log("delivery target unavailable; backing off");
          pause(wait, false);
          continue;
        } else {
          consecutiveFailures = 0;
          wait = outcome == Outcome.MORE ? Duration.ZERO : pollInterval;
        }
      } catch (Throwable e) {
        // Throwable, not Exception: an Error thrown by one step (a bad payload's stack overflow, a
        // client library's assertion) must not end the delivery thread for good.
        consecutiveFailures++;
        wait = backoff.after(consecutiveFailures);
        log.atError()
            .addKeyValue("loop", name)
            .addKeyValue("retryIn", wait)
            .setCause(e)
            .log("delivery step failed");
      }
      pause(wait, true);
    }
  }

  /**
   * Waits, ending early on a stop and, if {@code wakeable}, on a wake-up. A backoff because the
   * other side is down is not wakeable: new rows do not make the broker come back, and every commit
   * would otherwise reset the wait so the backoff never reached its cap.
   */
  private void pause(Duration wait, boolean wakeable) {
    if (wait.isZero()) {
      return;
    }
    lock.lock();
    try {
      long nanos = wait.toNanos();
      while (!(wakeable && woken) && !stopping && nanos > 0) {
        nanos = wake.awaitNanos(nanos);
      }
      woken = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
    } finally {
      lock.unlock();
    }
  }

  /** Stops after the current step (which finishes its batch). */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      t = thread;
      stopping = true;
    }
    wakeUp();
    if (t != null) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(60));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
