-- Operator actions (bin/reaper pause / resume / retry / requeue / audit). Both tables are the reaper's own; no other
-- writer of the messenger schema touches them.

-- Pauses obeyed by every runner at its next cycle: one row per scope, 'all' (the whole reaper) or a phase label.
-- A row whose until has passed no longer pauses anything (the cycle compares it with its asOf); resume deletes rows.
-- Read once per cycle in the run lock's round trip: a handful of rows at most.
CREATE TABLE messenger.conference_reaper_pauses (
    scope     text        PRIMARY KEY CHECK (scope IN ('all', 'empty-room', 'provision-timeout', 'stale-live')),
    reason    text        NOT NULL CHECK (reason <> ''),
    actor     text        NOT NULL,
    paused_at timestamptz NOT NULL,
    until     timestamptz NULL
);

-- The audit trail of every operator action, written in the same transaction as the change it records.
CREATE TABLE messenger.conference_reaper_audit (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at           timestamptz NOT NULL,
    actor        text        NOT NULL,
    action       text        NOT NULL,
    arguments    jsonb       NOT NULL,
    reason       text        NULL,
    rows_changed int         NOT NULL,
    -- What was changed: the ids (and the state they were in), as the command printed them.
    changed      jsonb       NOT NULL
);
CREATE INDEX ix_conference_reaper_audit_at ON messenger.conference_reaper_audit (at DESC);
