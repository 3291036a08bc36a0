package pin.messenger.reaper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * The pure decision: what happens to one claimed conference in one phase at {@code asOf}. No I/O;
 * the store only executes what this returns. It re-checks the phase's predicate (the claim SQL is
 * the first check, this is the second) and rejects rows whose data make a correct close impossible.
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
    String missing = missingField(phase, s);
    if (missing != null) {
      return new Decision.Poison(missing + " is null");
    }
    Instant cutoff = phase.cutoff(asOf, options);
    switch (phase) {
      case EMPTY_ROOM -> {
        if (s.activeParticipantCount() > 0) {
          return new Decision.Skip("active_participant_count is " + s.activeParticipantCount());
        }
        if (s.lastActivityAt().isAfter(cutoff)) {
          return new Decision.Skip("last_activity_at is within the empty-room grace");
        }
      }
      case STALE_LIVE -> {
        if (s.lastActivityAt().isAfter(cutoff)) {
          return new Decision.Skip("last_activity_at is within the stale-live timeout");
        }
      }
      case PROVISION_TIMEOUT -> {
        if (s.createdAt().isAfter(cutoff)) {
          return new Decision.Skip("created_at is within the provision timeout");
        }
      }
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

  private static String missingField(Phase phase, ConferenceSession s) {
    if (s.chatId() == null) {
      return "chat_id";
    }
    if (phase == Phase.PROVISION_TIMEOUT) {
      return s.createdAt() == null ? "created_at" : null;
    }
    if (s.lastActivityAt() == null) {
      return "last_activity_at";
    }
    if (s.startedAt() == null) {
      return "started_at";
    }
    if (s.dealId() == null) {
      return "deal_id";
    }
    return null;
  }

  private static Decision end(Phase phase, ConferenceSession s, Instant asOf) {
    if (s.startedAt().isAfter(asOf)) {
      return new Decision.Poison("started_at " + s.startedAt() + " is after asOf " + asOf);
    }
    long duration = Duration.between(s.startedAt(), asOf).getSeconds();
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
            s.startedAt(),
            asOf,
            duration,
            s.peakParticipantCount(),
            s.participants(),
            recordingId != null,
            recordingId);
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
            Transition.REALTIME_ENDED,
            s.activeRecordingIds()));
  }

  private static Decision fail(Phase phase, ConferenceSession s, Instant asOf) {
    return new Decision.Close(
        new Transition(
            s,
            phase,
            phase.from(),
            phase.to(),
            phase.endReason(),
            asOf,
            null,
            null,
            Transition.REALTIME_FAILED,
            s.activeRecordingIds()));
  }
}
