package pin.messenger.reaper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The schedule's arithmetic, a pure function of its inputs (no clock of its own, no I/O): when the
 * loop starts the next cycle after one that started at {@code lastStart} and ended at {@code
 * cycleEnd}.
 *
 * <ul>
 *   <li>{@link Schedule#FIXED}: {@code lastStart + polling-interval}, the spec's tick.
 *   <li>{@link Schedule#NEXT_DUE}: the earliest of the tick and (the earliest due instant of a
 *       phase that is not paused + {@code reaper.next-due.coalesce}), but never before {@code
 *       lastStart + reaper.next-due.min-gap}. A phase paused until a given time counts from the
 *       later of its due instant and the pause's end; one paused without an end contributes
 *       nothing.
 * </ul>
 *
 * Either way never before {@code cycleEnd}: a cycle never overlaps the one before it. Due instants
 * are the rows' (database) timestamps: under {@link ClockSource#SYSTEM} the cycle compares them
 * with the worker's clock, so they are waited for as they are; under {@link ClockSource#DATABASE}
 * they are compared with the database's clock, so the wait is shifted by the skew measured in the
 * same statement.
 */
public final class CycleSchedule {
  private final ConferenceRoomReaperOptions options;

  public CycleSchedule(ConferenceRoomReaperOptions options) {
    this.options = options;
  }

  /**
   * The next start.
   *
   * @param due what the statement after the cycle read; null when it was not read (fixed schedule)
   *     or failed: then the tick
   */
  public Wakeup next(Instant lastStart, Instant cycleEnd, @Nullable DueTimes due) {
    Instant tick = lastStart.plus(options.pollingInterval());
    if (options.schedule() == Schedule.FIXED || due == null) {
      return new Wakeup(later(tick, cycleEnd), null, null);
    }
    Phase phase = null;
    Instant earliest = null;
    for (Map.Entry<Phase, Instant> e : workerDueTimes(due).entrySet()) {
      if (earliest == null || e.getValue().isBefore(earliest)) {
        earliest = e.getValue();
        phase = e.getKey();
      }
    }
    if (earliest == null || !earliest.plus(options.nextDue().coalesce()).isBefore(tick)) {
      return new Wakeup(later(tick, cycleEnd), null, null);
    }
    Instant at = earliest.plus(options.nextDue().coalesce());
    // The polling interval stays the longest wait: a min gap set longer than it is cut to it.
    Duration minGap =
        options.nextDue().minGap().compareTo(options.pollingInterval()) > 0
            ? options.pollingInterval()
            : options.nextDue().minGap();
    at = later(at, lastStart.plus(minGap));
    return new Wakeup(later(at, cycleEnd), phase, earliest);
  }

  /**
   * Each phase's due instant on the worker's clock, paused phases left out (or moved to their
   * pause's end).
   */
  Map<Phase, Instant> workerDueTimes(DueTimes due) {
    Duration shift =
        options.clock() == ClockSource.DATABASE ? due.reading().skew().negated() : Duration.ZERO;
    // The pauses are judged on the clock the cycle judges them on.
    Instant pausesAsOf =
        options.clock() == ClockSource.DATABASE
            ? due.reading().databaseTime()
            : due.reading().workerTime();
    Map<Phase, Instant> out = new java.util.EnumMap<>(Phase.class);
    for (Map.Entry<Phase, Instant> e : due.earliest().entrySet()) {
      Instant from = e.getValue();
      boolean skip = false;
      for (PauseState.Pause p : due.pauses().activeAt(pausesAsOf)) {
        if (p.scope().equals(PauseState.ALL) || p.scope().equals(e.getKey().label())) {
          Instant until = p.until();
          if (until == null) {
            skip = true;
          } else {
            from = later(from, until);
          }
        }
      }
      if (!skip) {
        out.put(e.getKey(), from.plus(shift));
      }
    }
    return out;
  }

  private static Instant later(Instant a, Instant b) {
    return a.isBefore(b) ? b : a;
  }
}
