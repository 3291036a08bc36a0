package pin.messenger.reaper.core;

import java.time.Duration;
import java.time.Instant;

/**
 * One reading of the database's clock, bracketed by the worker's: taken at the start of every
 * cycle, whichever {@link ClockSource} gives the cycle its moment.
 *
 * @param databaseTime the database's {@code clock_timestamp()}
 * @param workerTime the worker's clock at the midpoint of the round trip (when the database most
 *     likely read its clock)
 * @param roundTrip how long the statement took, as the worker measured it; the skew is known to
 *     within half of it
 */
public record ClockReading(Instant databaseTime, Instant workerTime, Duration roundTrip) {

  /**
   * Database time minus worker time: positive when the worker's clock is behind the database's,
   * negative when it is ahead.
   */
  public Duration skew() {
    return Duration.between(workerTime, databaseTime);
  }
}
