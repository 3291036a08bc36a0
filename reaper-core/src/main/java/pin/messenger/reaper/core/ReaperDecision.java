package pin.messenger.reaper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The pure decision: what happens to one claimed conference in one phase at {@code asOf}. No I/O;
 * the store only executes what this returns. It re-checks, under the row lock, the phase's rule as
 * {@link Phase} defines it (status, empty room, window, poison backoff: the claim SQL is the first
 * check, this is the second), then rejects rows whose data make a correct close impossible.
 */
public final class ReaperDecision {
  private ReaperDecision() {}

  public static Decision decide(
      Phase phase, ConferenceSession s, Instant asOf, ConferenceRoomReaperOptions options) {
    ConferenceStatus status;
    try {
      status = ConferenceStatus.valueOf(String.valueOf(s.status()));
    } catch (IllegalArgumentException e) {
      return new Decision.Poison("unknown status '" + s.status() + "'");
    }
    if (status.isTerminal()) {
      return new Decision.Skip("already " + status + " (terminal)");
    }
    if (status != phase.from()) {
      return new Decision.Skip(
          "status is " + status + ", phase " + phase.label() + " closes " + phase.from());
    }
    // The phase's rule, read from Phase exactly as the claim SQL (store's PhaseRule) renders it;
    // PhaseRulePropertyTest checks that both agree on every row the schema can hold.
    Phase.ReferenceTime reference = phase.referenceTime();
    Instant referenceTime = reference.of(s);
    if (referenceTime == null) {
      return new Decision.Poison(reference.column() + " is null");
    }
    if (phase.requiresEmptyRoom() && s.activeParticipantCount() > 0) {
      return new Decision.Skip("active_participant_count is " + s.activeParticipantCount());
    }
    if (referenceTime.isAfter(phase.cutoff(asOf, options))) {
      return new Decision.Skip(reference.column() + " is within the " + phase.label() + " window");
    }
    if (s.reaperNextAttemptAt() != null && s.reaperNextAttemptAt().isAfter(asOf)) {
      return new Decision.Skip("poison backoff until " + s.reaperNextAttemptAt());
    }
    if (s.chatId() == null) {
      return new Decision.Poison("chat_id is null");
    }
    String noEvent = eventBlocker(phase, s, asOf);
    if (noEvent != null) {
      return new Decision.Poison(noEvent);
    }
    if (s.createdAt() != null && s.createdAt().isAfter(asOf)) {
      return new Decision.Poison("created_at " + s.createdAt() + " is after asOf " + asOf);
    }
    if (s.activeParticipantCount() < 0) {
      return new Decision.Poison(
          "active_participant_count is negative (" + s.activeParticipantCount() + ")");
    }
    return phase.publishesConferenceEnded() ? end(phase, s, asOf) : fail(phase, s, asOf);
  }

  /**
   * Why the phase's close of {@code s} at {@code asOf} cannot carry its conference-ended event (no
   * {@code started_at}, one after {@code asOf}, no {@code deal_id}); null when it can, or when the
   * phase publishes none. Such a row is poison for the reaper; an operator's {@code end} offers a
   * choice instead ({@link ManualEnd}).
   */
  public static @Nullable String eventBlocker(Phase phase, ConferenceSession s, Instant asOf) {
    if (!phase.publishesConferenceEnded()) {
      return null;
    }
    if (s.startedAt() == null) {
      return "started_at is null";
    }
    if (s.startedAt().isAfter(asOf)) {
      return "started_at " + s.startedAt() + " is after asOf " + asOf;
    }
    if (s.dealId() == null) {
      return "deal_id is null";
    }
    return null;
  }

  private static Decision end(Phase phase, ConferenceSession s, Instant asOf) {
    // eventBlocker has made a row without started_at poison before an Active row gets here.
    Instant startedAt = Objects.requireNonNull(s.startedAt(), "started_at");
    long duration = Duration.between(startedAt, asOf).toSeconds();
    UUID recordingId = s.latestRecordingId();
    ConferenceEndedEvent event =
        new ConferenceEndedEvent(
            s.id(),
            s.chatId(),
            s.dealId(),
            s.tenantId(),
            s.mediaType(),
            phase.to(),
            phase.endReason(),
            s.startedByUserId(),
            startedAt,
            asOf,
            duration,
            s.peakParticipantCount(),
            s.participants(),
            recordingId != null,
            recordingId);
    return close(phase, s, asOf, duration, event, Transition.REALTIME_ENDED);
  }

  private static Decision fail(Phase phase, ConferenceSession s, Instant asOf) {
    return close(phase, s, asOf, null, null, Transition.REALTIME_FAILED);
  }

  /**
   * The phase's close of {@code s} without its conference-ended event and without a duration: what
   * an operator chooses for a meeting whose start is unknown ({@link ManualEnd}). The status, end
   * reason, realtime row and recorder stops are the phase's own, as in {@link #decide}.
   */
  static Decision.Close closeWithoutEvent(Phase phase, ConferenceSession s, Instant asOf) {
    return close(
        phase,
        s,
        asOf,
        null,
        null,
        phase.publishesConferenceEnded() ? Transition.REALTIME_ENDED : Transition.REALTIME_FAILED);
  }

  /**
   * The phase's own status move and end reason, so an end and a failure cannot disagree on them.
   */
  private static Decision.Close close(
      Phase phase,
      ConferenceSession s,
      Instant asOf,
      @Nullable Long duration,
      @Nullable ConferenceEndedEvent event,
      String realtime) {
    return new Decision.Close(
        new Transition(
            s,
            phase,
            phase.from(),
            phase.to(),
            phase.endReason(),
            asOf,
            duration,
            event,
            realtime,
            s.activeRecordingIds()));
  }
}
