package pin.messenger.reaper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

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
      EndReason.EmptyTimeout,
      true,
      ReferenceTime.LAST_ACTIVITY_AT,
      ConferenceRoomReaperOptions::emptyRoomGrace),
  /** Provisioning for longer than the provision timeout → Failed(Error); no integration event. */
  PROVISION_TIMEOUT(
      "provision-timeout",
      "provision_failed",
      ConferenceStatus.Provisioning,
      ConferenceStatus.Failed,
      EndReason.Error,
      false,
      ReferenceTime.CREATED_AT,
      ConferenceRoomReaperOptions::provisionTimeout),
  /** Active without presence activity for longer than the stale-live timeout → Ended(Timeout). */
  STALE_LIVE(
      "stale-live",
      "stale_timeout",
      ConferenceStatus.Active,
      ConferenceStatus.Ended,
      EndReason.Timeout,
      false,
      ReferenceTime.LAST_ACTIVITY_AT,
      ConferenceRoomReaperOptions::staleLiveTimeout);

  /**
   * The timestamp a phase's window runs from. Claims are ordered by it, oldest first, with the
   * row's {@code id} as tiebreaker.
   */
  public enum ReferenceTime {
    /** Last presence activity (join, leave, heartbeat). */
    LAST_ACTIVITY_AT("last_activity_at"),
    /** When the session row was created. */
    CREATED_AT("created_at");

    private final String column;

    ReferenceTime(String column) {
      this.column = column;
    }

    /** The {@code conference_sessions} column that holds it. */
    public String column() {
      return column;
    }

    /** The session's value of it (null only for a row the schema would not hold). */
    public Instant of(ConferenceSession session) {
      return this == CREATED_AT ? session.createdAt() : session.lastActivityAt();
    }
  }

  private final String label;
  private final String outcome;
  private final ConferenceStatus from;
  private final ConferenceStatus to;
  private final EndReason endReason;
  private final boolean requiresEmptyRoom;
  private final ReferenceTime referenceTime;
  private final Function<ConferenceRoomReaperOptions, Duration> window;

  Phase(
      String label,
      String outcome,
      ConferenceStatus from,
      ConferenceStatus to,
      EndReason endReason,
      boolean requiresEmptyRoom,
      ReferenceTime referenceTime,
      Function<ConferenceRoomReaperOptions, Duration> window) {
    this.label = label;
    this.outcome = outcome;
    this.from = from;
    this.to = to;
    this.endReason = endReason;
    this.requiresEmptyRoom = requiresEmptyRoom;
    this.referenceTime = referenceTime;
    this.window = window;
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

  /**
   * True when only a room nobody is in is due (empty-room): {@code active_participant_count <= 0}.
   * A negative count is impossible data; it is claimed like an empty room so that the decision
   * rejects it as poison after the grace, not hours later in stale-live.
   */
  public boolean requiresEmptyRoom() {
    return requiresEmptyRoom;
  }

  /** The timestamp the window runs from and claims are ordered by. */
  public ReferenceTime referenceTime() {
    return referenceTime;
  }

  /** How long a row may stay in {@link #from} past its {@link #referenceTime} (the option). */
  public Duration window(ConferenceRoomReaperOptions options) {
    return window.apply(options);
  }

  /** The row's claim-order key (its {@link #referenceTime}); the row's id breaks ties. */
  public Instant orderKey(ConferenceSession session) {
    return referenceTime.of(session);
  }

  /**
   * The moment at or before which a row's reference time must lie for the row to be due at {@code
   * asOf}: the window ends at {@code referenceTime + window}, and a row exactly at it is due.
   */
  public Instant cutoff(Instant asOf, ConferenceRoomReaperOptions options) {
    return asOf.minus(window(options));
  }
}
