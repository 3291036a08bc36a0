package pin.messenger.reaper.core;

import java.util.Locale;

/** When the periodic worker starts its cycles ({@code reaper.schedule}). */
public enum Schedule {
  /** Every polling interval, at a fixed rate (the spec's tick). */
  FIXED,
  /**
   * When the next room falls due (plus the coalescing delay), read from the database after every
   * cycle; the polling interval stays the longest wait. See {@link CycleSchedule}.
   */
  NEXT_DUE;

  /** The property value ({@code fixed}, {@code next-due}). */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
