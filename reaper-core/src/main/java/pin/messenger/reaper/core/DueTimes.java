package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * When each phase next has a row to claim, as one statement over the live rows read it ({@link
 * ReaperStore#dueTimes}): per phase, the earliest end of a window (reference time + window) or of a
 * poison backoff, whichever is later for the row. The instants are the rows' own (written by the
 * database or the messenger's servers); {@link #reading} brackets the statement with the worker's
 * clock, so they can be turned into a local wait under either {@link ClockSource}.
 *
 * @param earliest phase → its earliest due instant; a phase with no row that could fall due is
 *     absent. May lie in the past (a row due now that this cycle did not close: held by another
 *     transaction, beyond the batch, or a later phase's backlog)
 * @param pauses the operators' pauses, read in the same statement
 * @param reading the database's clock at the statement, against the worker's
 */
public record DueTimes(Map<Phase, Instant> earliest, PauseState pauses, ClockReading reading) {
  public DueTimes {
    earliest = earliest.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(earliest));
  }
}
