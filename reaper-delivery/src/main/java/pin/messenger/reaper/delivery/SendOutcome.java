package pin.messenger.reaper.delivery;

/**
 * What the other side did with one leased row.
 *
 * @param kind delivered, failed (counts an attempt), or unavailable (counts nothing)
 * @param note what an operator reads in {@code last_error}; null clears it
 */
record SendOutcome(Kind kind, String note) {

  enum Kind {
    /** Accepted: the row is done. */
    DELIVERED,
    /** Refused for the row itself: an attempt is counted, the row backs off or is given up. */
    FAILED,
    /** The other side could not be reached: the row is released untouched but for the note. */
    UNAVAILABLE
  }

  static SendOutcome delivered(String note) {
    return new SendOutcome(Kind.DELIVERED, note);
  }

  static SendOutcome failed(String error) {
    return new SendOutcome(Kind.FAILED, error);
  }

  static SendOutcome unavailable(String error) {
    return new SendOutcome(Kind.UNAVAILABLE, error);
  }

  /** A bounded, readable description of an exception for {@code last_error}. */
  static String describe(Throwable e) {
    String m = e.getClass().getSimpleName() + ": " + e.getMessage();
    return m.length() > 1000 ? m.substring(0, 1000) : m;
  }
}
