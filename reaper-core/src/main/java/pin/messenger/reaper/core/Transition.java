package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What the reaper writes for one conference it closes: the status change (guarded by {@code from}),
 * and what goes into the outboxes in the same transaction.
 *
 * @param durationSeconds whole seconds from started_at to endedAt for an Ended close; null for
 *     Failed
 * @param event the conference-ended event for Active → Ended; null for Provisioning → Failed
 * @param realtimeKind kind of the realtime_outbox row ({@code ConferenceEnded} or {@code
 *     ConferenceFailed})
 * @param recordingsToStop recordings the media stack's recorder must be told to stop
 */
public record Transition(
    ConferenceSession session,
    Phase phase,
    ConferenceStatus from,
    ConferenceStatus to,
    EndReason endReason,
    Instant endedAt,
    @Nullable Long durationSeconds,
    @Nullable ConferenceEndedEvent event,
    String realtimeKind,
    List<UUID> recordingsToStop) {

  /** Realtime row kind for a meeting that ended. */
  public static final String REALTIME_ENDED = "ConferenceEnded";

  /**
   * Realtime row kind for a room that never came up (clients waiting for admission stop waiting).
   */
  public static final String REALTIME_FAILED = "ConferenceFailed";

  public Transition {
    recordingsToStop = List.copyOf(recordingsToStop);
  }

  public UUID conferenceId() {
    return session.id();
  }
}
