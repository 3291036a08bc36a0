package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A claimed conference as the reaper read it under its row lock, with what the event needs from the
 * roster and the recordings. {@code status} is the raw column value so that an unknown value
 * reaches the decision (and is rejected there) instead of failing the whole batch while reading.
 *
 * @param participants distinct users from the roster, in order of first join
 * @param latestRecordingId the newest recording of the session, or null when it was never recorded
 * @param activeRecordingIds recordings still Pending/Recording/Uploading: the recorder must be told
 *     to stop them
 * @param reaperNextAttemptAt when a poison row's backoff ends (null when the row never failed): the
 *     row is not due before it
 */
public record ConferenceSession(
    UUID id,
    UUID chatId,
    UUID dealId,
    UUID tenantId,
    String mediaType,
    String status,
    UUID startedByUserId,
    Instant createdAt,
    @Nullable Instant startedAt,
    Instant lastActivityAt,
    int activeParticipantCount,
    int peakParticipantCount,
    List<UUID> participants,
    @Nullable UUID latestRecordingId,
    List<UUID> activeRecordingIds,
    @Nullable Instant reaperNextAttemptAt) {

  public ConferenceSession {
    participants = participants == null ? List.of() : List.copyOf(participants);
    activeRecordingIds = activeRecordingIds == null ? List.of() : List.copyOf(activeRecordingIds);
  }

  /** The same row with no poison backoff: what "due" means for backlogs, explain and end. */
  public ConferenceSession withoutBackoff() {
    return withStartedAtAndNoBackoff(startedAt);
  }

  /** The same row started at {@code startedAt} (an operator's stated start), with no backoff. */
  public ConferenceSession withStartedAtAndNoBackoff(@Nullable Instant start) {
    return new ConferenceSession(
        id,
        chatId,
        dealId,
        tenantId,
        mediaType,
        status,
        startedByUserId,
        createdAt,
        start,
        lastActivityAt,
        activeParticipantCount,
        peakParticipantCount,
        participants,
        latestRecordingId,
        activeRecordingIds,
        null);
  }
}
