-- ix_conf_active without last_activity_at, so the messenger's presence heartbeat (an UPDATE of last_activity_at on a
-- live room) changes no indexed column and can be a HOT update: no new entry in any index, about half the WAL.
-- (PostgreSQL makes an update non-HOT when any column an index names changes - key, INCLUDE or predicate, partial
-- or not; only summarizing indexes such as BRIN are exempt, and only from PostgreSQL 16.)
--
-- What the claims keep from the index: only live rows (terminal history is never read), provision-timeout's
-- created_at, and empty-room's active_participant_count (only empty rooms are visited). What they now read from the
-- table: last_activity_at of those empty rooms, and of every Active room for stale-live - a cost that grows with the
-- live rooms, never with history. Measured trade-off: docs/design.md ("Index") and docs/benchmarks.md.
--
-- The new definition is built in this transaction: CREATE INDEX holds a SHARE lock on conference_sessions (writes
-- wait) while it scans the table. Where that table is large, build the index first by hand without blocking writes:
--   CREATE INDEX CONCURRENTLY ix_conf_active_v6 ON messenger.conference_sessions
--       (status, active_participant_count, created_at) WHERE status IN ('Provisioning', 'Active');
--   DROP INDEX CONCURRENTLY messenger.ix_conf_active;
--   ALTER INDEX messenger.ix_conf_active_v6 RENAME TO ix_conf_active;
-- and this migration finds the definition in place and leaves it alone.
DO $$
BEGIN
    IF NOT EXISTS (
        SELECT 1
          FROM pg_indexes
         WHERE schemaname = 'messenger'
           AND indexname = 'ix_conf_active'
           AND indexdef LIKE '%(status, active_participant_count, created_at) WHERE%'
    ) THEN
        DROP INDEX IF EXISTS messenger.ix_conf_active;
        CREATE INDEX ix_conf_active
            ON messenger.conference_sessions (status, active_participant_count, created_at)
            WHERE status IN ('Provisioning', 'Active');
    END IF;
END
$$;

-- Leave a tenth of each heap page free, so a heartbeat's new row version fits on its page (a HOT update needs that).
-- A storage parameter: it applies to pages filled from now on; existing pages keep their fill until rewritten
-- (VACUUM FULL, pg_repack), and pruning of old versions frees room on them meanwhile. Takes no lock that blocks writes.
ALTER TABLE messenger.conference_sessions SET (fillfactor = 90);
