package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.UUID;

/**
 * A row's place in its phase's claim order: the phase's reference time, then the row id as
 * tiebreaker, so that rows with the same timestamp still have one order.
 */
public record ClaimPosition(Instant orderKey, UUID id) {

  /** Where {@code session} stands in {@code phase}'s claim order. */
  public static ClaimPosition of(Phase phase, ConferenceSession session) {
    return new ClaimPosition(phase.orderKey(session), session.id());
  }
}
