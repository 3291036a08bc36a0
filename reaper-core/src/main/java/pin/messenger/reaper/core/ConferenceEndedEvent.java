package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The domain event of an Active → Ended close, and the payload of the integration event {@code
 * pin.messenger.conference-ended.v1} (key = {@code dealId}). Reference ids and enums only: no
 * names, no media. Its wire form is written by the store, which puts it in the outbox row ({@code
 * pin.messenger.reaper.store.ConferenceEndedPayload}).
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
    @Nullable UUID recordingId) {

  /** Kafka topic of the integration event. */
  public static final String TOPIC = "pin.messenger.conference-ended.v1";

  /** Value of {@code event_type} / CloudEvents {@code type}. */
  public static final String EVENT_TYPE = "conference-ended.v1";

  /**
   * The CloudEvents {@code dataschema} of the event: the {@code $id} of its JSON Schema, published
   * in docs/contract/conference-ended.v1.schema.json (a test holds the two equal).
   */
  public static final String DATA_SCHEMA =
      "https://pin.messenger/schemas/conference-ended.v1.schema.json";

  public ConferenceEndedEvent {
    participants = List.copyOf(participants);
  }
}
