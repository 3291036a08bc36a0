package pin.messenger.reaper.delivery;

import java.util.UUID;

/** A claimed row of {@code messenger.recorder_stop_requests}. */
record StopRequest(UUID id, UUID recordingId, UUID conferenceId, String reason, int attempts)
    implements LeasedRow {}
