package pin.messenger.reaper.blackbox;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting on a worker that runs in another process: its database rows, its log and its HTTP answers
 * can only be polled. One loop for every black-box test; the failure names what was awaited and
 * whatever the test adds (a worker's last log lines).
 */
final class Await {
  private Await() {}

  static void until(String what, Duration max, BooleanSupplier condition) throws Exception {
    until(what, max, condition, () -> "");
  }

  /** As above; {@code context} is appended to the failure message (e.g. a worker's log tail). */
  static void until(String what, Duration max, BooleanSupplier condition, Supplier<String> context)
      throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + max + ": " + what + context.get());
      }
      Thread.sleep(50);
    }
  }
}
