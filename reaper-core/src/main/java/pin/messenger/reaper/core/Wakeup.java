package pin.messenger.reaper.core;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * When the loop starts its next cycle, and why.
 *
 * @param at the start, on the worker's clock
 * @param phase the phase whose earliest due row it wakes for; null when it is the polling
 *     interval's tick (nothing due sooner, {@code fixed} schedule, or the due times unknown)
 * @param due that row's due instant on the worker's clock (null for a tick)
 */
public record Wakeup(Instant at, @Nullable Phase phase, @Nullable Instant due) {

  /** What it wakes for: the phase's label, or {@code tick}. */
  public String reason() {
    return phase == null ? TICK : phase.label();
  }

  /** {@link #reason()} of a wake-up for the polling interval. */
  public static final String TICK = "tick";
}
