package pin.messenger.reaper.delivery;

import java.time.Instant;
import java.util.UUID;

/** A claimed row of {@code messenger.integration_outbox}. */
record OutboxRow(
    UUID id,
    long seq,
    String topic,
    String key,
    String eventType,
    String payload,
    Instant occurredAt,
    String correlationId,
    int attempts,
    String subject)
    implements LeasedRow {}
