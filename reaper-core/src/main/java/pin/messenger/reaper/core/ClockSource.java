package pin.messenger.reaper.core;

import java.util.Locale;

/**
 * Whose clock gives a cycle its {@code asOf} ({@code reaper.clock}). The rows' timestamps ({@code
 * last_activity_at}, {@code created_at}) are written by the database or the messenger's servers;
 * the windows are measured against {@code asOf}, so a worker whose clock is off by some seconds
 * closes rooms that many seconds early (ahead) or late (behind). Either way {@code asOf} is read
 * once, at the start of the cycle, and passed down.
 */
public enum ClockSource {
  /**
   * The worker's injected {@link java.time.Clock} (the spec's choice, the default). Closes are only
   * as right as the worker's NTP: a worker ahead by Δ closes rooms up to Δ before their window by
   * the database's clock.
   */
  SYSTEM,
  /**
   * The database's {@code clock_timestamp()}, read in one statement at the start of the cycle. No
   * room is closed before its window by the database's clock, whatever the worker's clock says.
   */
  DATABASE;

  /** The property value ({@code system}, {@code database}). */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
