package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The domain event of an Active → Ended close, and the payload of the integration event {@code
 * pin.messenger.conference-ended.v1} (key = {@code dealId}). Reference ids and enums only: no
 * names, no media.
 */
public record ConferenceEndedEvent(
    UUID conferenceId,
    UUID chatId,
    UUID dealId,
    UUID tenantId,
    String mediaType,
    ConferenceStatus status,
    EndReason endReason,
    UUID startedByUserId,
    Instant startedAt,
    Instant endedAt,
    long durationSeconds,
    int peakParticipantCount,
    List<UUID> participants,
    boolean wasRecorded,
    UUID recordingId) {

  /** Kafka topic of the integration event. */
  public static final String TOPIC = "pin.messenger.conference-ended.v1";

  /** Value of {@code event_type} / CloudEvents {@code type}. */
  public static final String EVENT_TYPE = "conference-ended.v1";

  public ConferenceEndedEvent {
    participants = List.copyOf(participants);
  }

  /** The payload as camelCase JSON with ISO-8601 UTC instants, the wire form of the contract. */
  public String toJson() {
    Json json = new Json();
    json.field("conferenceId", conferenceId)
        .field("chatId", chatId)
        .field("dealId", dealId)
        .field("tenantId", tenantId)
        .field("mediaType", mediaType)
        .field("status", status.name())
        .field("endReason", endReason.name())
        .field("startedByUserId", startedByUserId)
        .field("startedAt", startedAt)
        .field("endedAt", endedAt)
        .field("durationSeconds", durationSeconds)
        .field("peakParticipantCount", peakParticipantCount);
    json.participants("participants", participants)
        .field("wasRecorded", wasRecorded)
        .field("recordingId", recordingId);
    return json.close();
  }
}
