-- The reaper's own mark on a live room, so that a cycle visits what is due, not every live room.
--
-- reaper_window_start: the instant the row's window runs from, as the reaper last saw the row: its reference time
-- then (last_activity_at of an Active room, created_at of a Provisioning one). The reference time only moves
-- forward, so the mark is never after it, and a row is visited once the configured window has passed since the mark
-- (reaper_window_start <= asOf - window): whatever the window is now, a change of it included. Only the reaper writes
-- it (Deadlines.REARM, on a visit); '-infinity', the default, means "not armed": a row the messenger inserted, or one
-- whose backoff the reaper changed. It sorts first, so unarmed rows are the head of the range and are visited at the
-- next cycle. A visited row that is not due is re-armed from its current reference time. The heartbeat writes
-- last_activity_at only, which no index names: it stays a HOT update. docs/design.md, "Deadlines".
--
-- A constant default: no table rewrite (PostgreSQL 11+), and the messenger's inserts keep working unchanged.
ALTER TABLE messenger.conference_sessions
    ADD COLUMN IF NOT EXISTS reaper_window_start timestamptz NOT NULL DEFAULT '-infinity';

-- ix_conf_due: the live rows' marks in order, per status; unarmed rows ('-infinity') first. The statements read it
-- in that order with a LIMIT, which no other index can serve: they keep to it whatever the table's statistics
-- say (a terminal history of old marks makes every mark look due). "reaper_window_start IS NOT NULL" (always true:
-- the column is NOT NULL) is in the predicate on purpose: a statement must compare the deadline for the planner to
-- prove the index applies, so empty-room's claim, which names none, keeps to ix_conf_active's empty range. ix_conf_backoff and ix_conf_poison: the live rows in poison backoff and
-- those with a recorded error (few), so the backlog gauges (a row backing off is due for them but not visited) and
-- status read them by index, not by a pass over the live rows. None names a column the heartbeat writes.
--
-- Built in this transaction when missing: CREATE INDEX holds a SHARE lock on conference_sessions (writes wait) while
-- it scans the table. Where that table is large, add the column and build the indexes first by hand without blocking
-- writes (ADD COLUMN with a constant default takes a brief exclusive lock and rewrites nothing):
--   ALTER TABLE messenger.conference_sessions
--       ADD COLUMN IF NOT EXISTS reaper_window_start timestamptz NOT NULL DEFAULT '-infinity';
--   CREATE INDEX CONCURRENTLY ix_conf_due ON messenger.conference_sessions (status, reaper_window_start)
--       WHERE status IN ('Provisioning', 'Active') AND reaper_window_start IS NOT NULL;
--   CREATE INDEX CONCURRENTLY ix_conf_backoff ON messenger.conference_sessions (reaper_next_attempt_at)
--       WHERE status IN ('Provisioning', 'Active') AND reaper_next_attempt_at IS NOT NULL;
--   CREATE INDEX CONCURRENTLY ix_conf_poison ON messenger.conference_sessions (reaper_last_error_at)
--       WHERE status IN ('Provisioning', 'Active') AND reaper_last_error IS NOT NULL;
-- This migration then finds the valid indexes in place and leaves them alone; an invalid one (a CONCURRENTLY build
-- that failed) is dropped and built again.
DO $$
DECLARE
    ix record;
BEGIN
    FOR ix IN
        SELECT * FROM (VALUES
            ('ix_conf_due',
             'CREATE INDEX ix_conf_due ON messenger.conference_sessions (status, reaper_window_start)
                  WHERE status IN (''Provisioning'', ''Active'') AND reaper_window_start IS NOT NULL'),
            ('ix_conf_backoff',
             'CREATE INDEX ix_conf_backoff ON messenger.conference_sessions (reaper_next_attempt_at)
                  WHERE status IN (''Provisioning'', ''Active'') AND reaper_next_attempt_at IS NOT NULL'),
            ('ix_conf_poison',
             'CREATE INDEX ix_conf_poison ON messenger.conference_sessions (reaper_last_error_at)
                  WHERE status IN (''Provisioning'', ''Active'') AND reaper_last_error IS NOT NULL')
        ) AS t(name, ddl)
    LOOP
        IF NOT EXISTS (
            SELECT 1
              FROM pg_index i
              JOIN pg_class c ON c.oid = i.indexrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'messenger' AND c.relname = ix.name AND i.indisvalid
        ) THEN
            EXECUTE format('DROP INDEX IF EXISTS messenger.%I', ix.name);
            EXECUTE ix.ddl;
        END IF;
    END LOOP;
END
$$;
