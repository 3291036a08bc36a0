-- Schema the conference-room-reaper works on. The messenger shares these tables: names and columns are fixed by
-- the messenger's model; columns the reaper adds (reaper_*) all have defaults so other writers' inserts keep working.
-- The schema itself is created by Flyway (createSchemas) or already exists where the messenger owns it.

CREATE TABLE messenger.conference_sessions (
    id                       uuid        PRIMARY KEY,
    chat_id                  uuid        NOT NULL,
    deal_id                  uuid        NOT NULL,
    tenant_id                uuid        NOT NULL,
    media_type               text        NOT NULL CHECK (media_type IN ('Audio', 'Video')),
    status                   text        NOT NULL CHECK (status IN ('Provisioning', 'Active', 'Ended', 'Failed')),
    end_reason               text        NULL,
    started_by_user_id       uuid        NOT NULL,
    created_at               timestamptz NOT NULL,
    started_at               timestamptz NULL,
    ended_at                 timestamptz NULL,
    last_activity_at         timestamptz NOT NULL,
    updated_at               timestamptz NOT NULL,
    active_participant_count int         NOT NULL DEFAULT 0,
    peak_participant_count   int         NOT NULL DEFAULT 0,
    duration_seconds         bigint      NULL,
    -- Poison bookkeeping (reaper-owned): how often a close of this row failed, why, and when to try again.
    reaper_attempts          int         NOT NULL DEFAULT 0,
    reaper_last_error        text        NULL,
    reaper_last_error_at     timestamptz NULL,
    reaper_next_attempt_at   timestamptz NULL
);

-- ix_conf_active: only live rows (Provisioning/Active), so the claims never touch the history of terminal rows.
-- Key order serves all three claims with every predicate checked inside the index: empty-room and stale-live are a
-- range on (status, last_activity_at) in claim order, active_participant_count is filtered in the index, and
-- provision-timeout checks created_at in the index over the (few) Provisioning entries.
CREATE INDEX ix_conf_active
    ON messenger.conference_sessions (status, last_activity_at, active_participant_count, created_at)
    WHERE status IN ('Provisioning', 'Active');

CREATE TABLE messenger.conference_participants (
    conference_id uuid        NOT NULL,
    user_id       uuid        NOT NULL,
    joined_at     timestamptz NOT NULL,
    left_at       timestamptz NULL
);
CREATE INDEX ix_conf_participants_conference ON messenger.conference_participants (conference_id);

CREATE TABLE messenger.call_recordings (
    id            uuid        PRIMARY KEY,
    conference_id uuid        NOT NULL,
    status        text        NOT NULL CHECK (status IN ('Pending', 'Recording', 'Uploading', 'Ready', 'Failed')),
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
CREATE INDEX ix_call_recordings_conference ON messenger.call_recordings (conference_id, created_at);

-- Transactional outbox of integration events (pin.messenger.conference-ended.v1); id is the event id.
CREATE TABLE messenger.integration_outbox (
    id             uuid        PRIMARY KEY,
    topic          text        NOT NULL,
    message_key    text        NOT NULL,
    event_type     text        NOT NULL,
    payload        jsonb       NOT NULL,
    occurred_at    timestamptz NOT NULL,
    correlation_id text        NULL,
    published_at   timestamptz NULL
);
CREATE INDEX ix_integration_outbox_pending ON messenger.integration_outbox (occurred_at) WHERE published_at IS NULL;

-- Persist-then-push rows for realtime-dispatch (hub push ConferenceSignal). Reference ids and enums only.
CREATE TABLE messenger.realtime_outbox (
    id            uuid        PRIMARY KEY,
    kind          text        NOT NULL,
    target_kind   text        NOT NULL,
    chat_id       uuid        NOT NULL,
    session_kind  text        NOT NULL,
    conference_id uuid        NOT NULL,
    created_at    timestamptz NOT NULL,
    dispatched_at timestamptz NULL
);
CREATE INDEX ix_realtime_outbox_pending ON messenger.realtime_outbox (created_at) WHERE dispatched_at IS NULL;

-- Stop signals for the media stack's recorder, written with the transition and delivered after commit.
CREATE TABLE messenger.recorder_stop_requests (
    id            uuid        PRIMARY KEY,
    recording_id  uuid        NOT NULL,
    conference_id uuid        NOT NULL,
    reason        text        NOT NULL,
    created_at    timestamptz NOT NULL,
    delivered_at  timestamptz NULL,
    attempts      int         NOT NULL DEFAULT 0,
    last_error    text        NULL
);
CREATE INDEX ix_recorder_stop_requests_pending ON messenger.recorder_stop_requests (created_at) WHERE delivered_at IS NULL;
