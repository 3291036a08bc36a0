-- Grants of the worker role on the reaper's tables; run after the migrations (as their owner or a superuser).
GRANT SELECT ON messenger.conference_sessions TO conference_reaper;
GRANT UPDATE (status, end_reason, ended_at, updated_at, duration_seconds,
              reaper_attempts, reaper_last_error, reaper_last_error_at, reaper_next_attempt_at, reaper_error_history,
              reaper_window_start)
      ON messenger.conference_sessions TO conference_reaper;
GRANT SELECT ON messenger.conference_participants, messenger.call_recordings TO conference_reaper;
-- Outbox: written by the reaper, published/retried/deleted (retention) by the relay.
GRANT SELECT, INSERT, DELETE ON messenger.integration_outbox TO conference_reaper;
GRANT UPDATE (published_at, attempts, last_error, next_attempt_at, locked_until, locked_by, quarantined_at)
      ON messenger.integration_outbox TO conference_reaper;
-- reaper.outbox.mode=debezium (V9): the transition inserts its event row and deletes it before commit; Debezium reads
-- the insert from the WAL (its role and publication: debezium-replication.sql). No SELECT, no UPDATE.
GRANT INSERT, DELETE ON messenger.integration_outbox_debezium TO conference_reaper;
-- Realtime rows: written only (realtime-dispatch delivers them); SELECT for the pending count in status.
GRANT SELECT, INSERT ON messenger.realtime_outbox TO conference_reaper;
GRANT SELECT, INSERT ON messenger.recorder_stop_requests TO conference_reaper;
GRANT UPDATE (delivered_at, attempts, last_error, next_attempt_at, locked_until, locked_by, gave_up_at)
      ON messenger.recorder_stop_requests TO conference_reaper;
-- Flyway's history, read at start-up to verify the schema when migrations are off.
GRANT SELECT ON messenger.conference_room_reaper_schema_history TO conference_reaper;
-- Operator pauses: every cycle reads them (in its run-lock round trip), status and explain show them.
GRANT SELECT ON messenger.conference_reaper_pauses TO conference_reaper;
-- Who is running (V7): each worker upserts its own row, marks it stopped, and deletes rows of long-gone runners.
GRANT SELECT, INSERT, UPDATE, DELETE ON messenger.conference_reaper_runners TO conference_reaper;
-- On-call starts with the worker's settings: the worker role may read the audit trail (bin/reaper audit), not write it.
GRANT SELECT ON messenger.conference_reaper_audit TO conference_reaper;
-- Operator actions (conference_reaper_operator, a member of conference_reaper): pause / resume write the pauses;
-- every action appends to the audit trail, which nobody but its owner may change or delete. INSERT is granted on the
-- columns an action fills, not on db_role: the database fills that one (DEFAULT current_user), so the role recorded
-- beside --actor cannot be forged. The REVOKE first takes back a table-wide INSERT an earlier version granted.
GRANT INSERT, UPDATE, DELETE ON messenger.conference_reaper_pauses TO conference_reaper_operator;
REVOKE INSERT ON messenger.conference_reaper_audit FROM conference_reaper_operator;
GRANT INSERT (at, actor, action, arguments, reason, rows_changed, changed)
      ON messenger.conference_reaper_audit TO conference_reaper_operator;
