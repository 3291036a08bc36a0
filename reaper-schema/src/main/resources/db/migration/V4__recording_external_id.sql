-- The media stack's own id of a recording (LiveKit's egress id), so the recorder adapter can stop it by that id.
-- Written by the media-stack integration that starts the recording (not by the reaper); the reaper only reads it.
-- Other writers share both tables, so both columns are nullable with a default: their inserts keep working.

ALTER TABLE messenger.call_recordings
    ADD COLUMN external_id text NULL DEFAULT NULL;

-- Copied from call_recordings.external_id when the reaper writes the stop request, in the same statement.
-- NULL: the recording had none then; the LiveKit adapter gives such a request up (nothing to stop by).
ALTER TABLE messenger.recorder_stop_requests
    ADD COLUMN external_id text NULL DEFAULT NULL;
