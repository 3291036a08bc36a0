package pin.messenger.reaper.delivery;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A claimed row of {@code messenger.integration_outbox}.
 *
 * @param traceParent the W3C {@code traceparent} of the cycle that wrote the row; null if none
 */
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
    String subject,
    @Nullable String traceParent)
    implements LeasedRow {}
