package pin.messenger.reaper.delivery;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the other side did with one leased row.
 *
 * @param kind delivered, failed (counts an attempt), given up (at once), or unavailable (counts
 *     nothing)
 * @param note what an operator reads in {@code last_error}; null clears it
 * @param at when the other side acknowledged a delivered row (the row's {@code published_at}); null
 *     for "the step's time"
 */
record SendOutcome(Kind kind, @Nullable String note, @Nullable Instant at) {

  enum Kind {
    /** Accepted: the row is done. */
    DELIVERED,
    /** Refused for the row itself: an attempt is counted, the row backs off or is given up. */
    FAILED,
    /** The other side could not be reached: the row is released untouched but for the note. */
    UNAVAILABLE,
    /**
     * Refused in a way no retry can change (e.g. our credentials are rejected, nothing to stop by):
     * an attempt is counted and the row is given up at once instead of retried.
     */
    GIVE_UP
  }

  static SendOutcome delivered(@Nullable String note) {
    return new SendOutcome(Kind.DELIVERED, note, null);
  }

  static SendOutcome deliveredAt(Instant at) {
    return new SendOutcome(Kind.DELIVERED, null, at);
  }

  /**
   * This outcome with {@code at} as its acknowledgement time when it is a delivery that carries
   * none: stamped by the caller when the answer arrives, not when the step settles.
   */
  SendOutcome answeredAt(Instant at) {
    return kind == Kind.DELIVERED && this.at == null ? new SendOutcome(kind, note, at) : this;
  }

  static SendOutcome failed(String error) {
    return new SendOutcome(Kind.FAILED, error, null);
  }

  static SendOutcome giveUp(String reason) {
    return new SendOutcome(Kind.GIVE_UP, reason, null);
  }

  static SendOutcome unavailable(@Nullable String error) {
    return new SendOutcome(Kind.UNAVAILABLE, error, null);
  }

  /** A bounded, readable description of an exception for {@code last_error}. */
  static String describe(@Nullable Throwable e) {
    if (e == null) {
      return "unknown error";
    }
    String m = e.getClass().getSimpleName() + ": " + e.getMessage();
    return m.length() > 1000 ? m.substring(0, 1000) : m;
  }
}
