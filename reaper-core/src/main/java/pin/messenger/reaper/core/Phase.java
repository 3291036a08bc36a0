package pin.messenger.reaper.core;

/**
 * The three phases of a cycle, in the order they run. A row closed by an earlier phase is terminal
 * and so out of the later phases' selection.
 */
public enum Phase {
  /** Active, nobody in the room for longer than the empty-room grace → Ended(EmptyTimeout). */
  EMPTY_ROOM(
      "empty-room",
      "empty_timeout",
      ConferenceStatus.Active,
      ConferenceStatus.Ended,
      EndReason.EmptyTimeout),
  /** Provisioning for longer than the provision timeout → Failed(Error); no integration event. */
  PROVISION_TIMEOUT(
      "provision-timeout",
      "provision_failed",
      ConferenceStatus.Provisioning,
      ConferenceStatus.Failed,
      EndReason.Error),
  /** Active without presence activity for longer than the stale-live timeout → Ended(Timeout). */
  STALE_LIVE(
      "stale-live",
      "stale_timeout",
      ConferenceStatus.Active,
      ConferenceStatus.Ended,
      EndReason.Timeout);

  private final String label;
  private final String outcome;
  private final ConferenceStatus from;
  private final ConferenceStatus to;
  private final EndReason endReason;

  Phase(
      String label,
      String outcome,
      ConferenceStatus from,
      ConferenceStatus to,
      EndReason endReason) {
    this.label = label;
    this.outcome = outcome;
    this.from = from;
    this.to = to;
    this.endReason = endReason;
  }

  /** Name used in logs, traces and the CLI ({@code empty-room}, …). */
  public String label() {
    return label;
  }

  /** Value of the {@code outcome} metric tag for a row this phase closed. */
  public String outcome() {
    return outcome;
  }

  /** The only status this phase may move a row out of (the status guard). */
  public ConferenceStatus from() {
    return from;
  }

  /** The terminal status this phase moves a row into. */
  public ConferenceStatus to() {
    return to;
  }

  /** The end reason this phase records. */
  public EndReason endReason() {
    return endReason;
  }

  /**
   * True when the phase's close is a meeting that ended (Active → Ended) and so publishes
   * conference-ended.
   */
  public boolean publishesConferenceEnded() {
    return to == ConferenceStatus.Ended;
  }

  /** The row's claim-order key: what {@link #cutoff} is compared with, oldest first. */
  public java.time.Instant orderKey(ConferenceSession session) {
    return this == PROVISION_TIMEOUT ? session.createdAt() : session.lastActivityAt();
  }

  /**
   * The moment at or before which a row's reference time must lie for the row to be due at {@code
   * asOf}.
   */
  public java.time.Instant cutoff(java.time.Instant asOf, ConferenceRoomReaperOptions options) {
    return switch (this) {
      case EMPTY_ROOM -> asOf.minus(options.emptyRoomGrace());
      case PROVISION_TIMEOUT -> asOf.minus(options.provisionTimeout());
      case STALE_LIVE -> asOf.minus(options.staleLiveTimeout());
    };
  }
}
