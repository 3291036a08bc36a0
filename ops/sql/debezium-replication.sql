-- reaper.outbox.mode=debezium: what the platform's Debezium connector (ops/kafka-connect/) needs in the messenger
-- database, with the least privilege. Run as a superuser (on PostgreSQL 16 and later also a role with CREATEROLE and
-- REPLICATION that owns the table) in the messenger database, after the migrations (V9 creates messenger.integration_outbox_debezium) and BEFORE the workers
-- switch to debezium mode: the slot created here keeps the WAL from this moment, so no row written after it is missed,
-- even before the connector first starts. Then set the password out of band: ALTER ROLE conference_reaper_cdc PASSWORD '…';
-- Idempotent: run it again after a new migration like least-privilege-grants.sql.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'conference_reaper_cdc') THEN
    -- REPLICATION: may open a logical replication connection (the WAL stream); nothing else.
    CREATE ROLE conference_reaper_cdc LOGIN REPLICATION;
  END IF;
END
$$;

-- The connector reads the one table: the publication carries only its inserts, so the WAL decoded for the slot holds
-- nothing of the messenger's other tables. SELECT is what pgoutput and the connector's schema read need.
GRANT USAGE ON SCHEMA messenger TO conference_reaper_cdc;
GRANT SELECT ON messenger.integration_outbox_debezium TO conference_reaper_cdc;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'conference_room_reaper_outbox') THEN
    CREATE PUBLICATION conference_room_reaper_outbox FOR TABLE messenger.integration_outbox_debezium
      WITH (publish = 'insert');
  END IF;
END
$$;

-- The slot the connector resumes from (slot.name). It holds WAL until the connector confirms it: watch
-- pg_replication_slots (see ops/kafka-connect/README.md) and drop it if the connector is retired:
--   SELECT pg_drop_replication_slot('conference_room_reaper_outbox');
SELECT pg_create_logical_replication_slot('conference_room_reaper_outbox', 'pgoutput')
 WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = 'conference_room_reaper_outbox');
