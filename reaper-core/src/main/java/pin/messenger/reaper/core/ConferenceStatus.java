package pin.messenger.reaper.core;

/**
 * Lifecycle status of a {@code ConferenceSessionEntity}. Ended and Failed are terminal
 * (INV-CONF-4).
 */
public enum ConferenceStatus {
  Provisioning,
  Active,
  Ended,
  Failed;

  /** True for Ended and Failed: no transition may leave them. */
  public boolean isTerminal() {
    return this == Ended || this == Failed;
  }
}
