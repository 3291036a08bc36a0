package pin.messenger.reaper.delivery;

import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A claimed row of {@code messenger.recorder_stop_requests}.
 *
 * @param externalId the media stack's own id of the recording (LiveKit's egress id), copied from
 *     {@code call_recordings.external_id} when the reaper wrote the request; null if it had none
 * @param traceParent the W3C {@code traceparent} of the cycle that wrote the request; null if none
 */
record StopRequest(
    UUID id,
    UUID recordingId,
    UUID conferenceId,
    String reason,
    int attempts,
    @Nullable String externalId,
    @Nullable String traceParent)
    implements LeasedRow {}
