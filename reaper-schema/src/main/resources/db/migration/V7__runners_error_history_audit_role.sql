-- Operators, second round (issue 25): who is running, a poison row's error history, and who did it by database role.
-- Plain DDL that PostgreSQL 13-17 all accept; nothing here sets session state, so it runs the same through Flyway's
-- own connection (spring.flyway.url) whatever pooling the worker uses.

-- Every worker records itself here and refreshes its row at each cycle's start and end, in a statement of its own
-- (never inside a cycle's transaction). bin/reaper status lists them: live while last_seen_at is within the row's own
-- silent_after, else silent (killed, partitioned, wedged). A worker that stops cleanly sets stopped_at. Rows of runners
-- gone for longer than reaper.runners.retention are deleted by the live runners. The reaper's own table: a handful of
-- rows, one per worker process.
CREATE TABLE messenger.conference_reaper_runners (
    instance_id             text        PRIMARY KEY,
    host                    text        NOT NULL,
    pid                     bigint      NULL,
    version                 text        NOT NULL,
    started_at              timestamptz NOT NULL,
    -- The database's clock at the last refresh (clock_timestamp()), so silence is judged on one clock.
    last_seen_at            timestamptz NOT NULL,
    -- How long this runner may go without a refresh before it counts as silent (from its own schedule).
    silent_after_ms         bigint      NOT NULL CHECK (silent_after_ms > 0),
    last_cycle_id           text        NULL,
    last_cycle_started_at   timestamptz NULL,
    last_cycle_completed_at timestamptz NULL,
    -- Whether its last completed cycle held the run lock (false: another runner held it, the cycle was skipped).
    last_cycle_held_lock    boolean     NULL,
    -- The phases its last cycle found paused (the pauses it obeys), as labels.
    paused_phases           jsonb       NOT NULL DEFAULT '[]'::jsonb,
    stopped_at              timestamptz NULL
);

-- The last errors of a poison row, newest first, bounded by the writer (PoisonIsolation.ERROR_HISTORY, 5 entries):
-- [{"attempt": 3, "at": "...", "error": "..."}, ...]. Written in the same statement as reaper_last_error. A constant
-- default: no table rewrite (PostgreSQL 11+), and other writers' inserts keep working. Not indexed, so the presence
-- heartbeat stays a HOT update.
ALTER TABLE messenger.conference_sessions
    ADD COLUMN reaper_error_history jsonb NOT NULL DEFAULT '[]'::jsonb;

-- The database role that wrote an audit row, beside the actor the caller typed (--actor or the OS user). Filled by the
-- database (current_user) and not grantable for INSERT (least-privilege-grants.sql), so a caller cannot forge it.
-- Rows written before this migration keep NULL: their role was not recorded. Two steps on purpose: a default given in
-- ADD COLUMN would be evaluated now and stamped on the old rows as the migrating role.
ALTER TABLE messenger.conference_reaper_audit ADD COLUMN db_role text NULL;
ALTER TABLE messenger.conference_reaper_audit ALTER COLUMN db_role SET DEFAULT current_user;
-- audit --action / --actor: the trail is small, but filtered reads stay an index range as it grows.
CREATE INDEX ix_conference_reaper_audit_action ON messenger.conference_reaper_audit (action, id DESC);
