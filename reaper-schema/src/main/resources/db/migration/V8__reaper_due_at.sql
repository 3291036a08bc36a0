-- The reaper's own deadline on a live room (issue: an idle cycle that costs what is due, not what is live).
--
-- reaper_due_at: no earlier than this instant can the row become claimable by stale-live or provision-timeout.
-- Only the reaper writes it (Deadlines.REARM, on a visit); NULL means "not armed": a row the messenger inserted, or
-- one whose backoff the reaper changed. A cycle visits the live rows whose deadline has come (or is NULL) through
-- ix_conf_due, claims the due ones and re-arms the others from their current last_activity_at. The heartbeat writes
-- last_activity_at only, which no index names: it stays a HOT update. docs/design.md, "Deadlines".
--
-- A nullable column without a default: no table rewrite, and the messenger's inserts keep working unchanged.
ALTER TABLE messenger.conference_sessions ADD COLUMN IF NOT EXISTS reaper_due_at timestamptz NULL;

-- ix_conf_due: the armed live rows' deadlines in order, per status. ix_conf_unarmed: the live rows never armed (NULL),
-- few: the messenger's inserts since the last cycle. A statement finds them only by naming the deadline (IS NULL,
-- <= ...): empty-room's claim names none, so the planner cannot take either index for it and keeps to ix_conf_active's
-- empty range. ix_conf_backoff and ix_conf_poison: the live rows in poison backoff and those with a recorded error (few),
-- so the backlog gauges (a row backing off is due for them but not visited) and status read them by index, not by a
-- pass over the live rows. None names a column the messenger's heartbeat writes.
--
-- Built in this transaction when missing: CREATE INDEX holds a SHARE lock on conference_sessions (writes wait) while
-- it scans the table. Where that table is large, add the column and build the indexes first by hand without blocking
-- writes (ADD COLUMN takes a brief exclusive lock and rewrites nothing):
--   ALTER TABLE messenger.conference_sessions ADD COLUMN IF NOT EXISTS reaper_due_at timestamptz NULL;
--   CREATE INDEX CONCURRENTLY ix_conf_due ON messenger.conference_sessions (status, reaper_due_at)
--       WHERE status IN ('Provisioning', 'Active') AND reaper_due_at IS NOT NULL;
--   CREATE INDEX CONCURRENTLY ix_conf_unarmed ON messenger.conference_sessions (status)
--       WHERE status IN ('Provisioning', 'Active') AND reaper_due_at IS NULL;
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
             'CREATE INDEX ix_conf_due ON messenger.conference_sessions (status, reaper_due_at)
                  WHERE status IN (''Provisioning'', ''Active'') AND reaper_due_at IS NOT NULL'),
            ('ix_conf_unarmed',
             'CREATE INDEX ix_conf_unarmed ON messenger.conference_sessions (status)
                  WHERE status IN (''Provisioning'', ''Active'') AND reaper_due_at IS NULL'),
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
