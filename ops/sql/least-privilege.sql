-- Least-privilege roles for conference-room-reaper. Run as a superuser (or the database owner) once, and again
-- after every new migration (GRANTs are idempotent). Then set the login password out of band:
--   ALTER ROLE conference_reaper PASSWORD '…';   ALTER ROLE conference_reaper_owner PASSWORD '…';
--   ALTER ROLE conference_reaper_operator PASSWORD '…';
-- The worker runs as conference_reaper (SPRING_DATASOURCE_USERNAME); migrations run as conference_reaper_owner
-- (spring.flyway.user / bin/reaper migrate with SPRING_DATASOURCE_USERNAME=conference_reaper_owner); the operator
-- actions (bin/reaper pause / resume / retry / requeue / end) run as conference_reaper_operator: the worker's
-- rights plus writing pauses and audit rows, so that the worker itself can neither pause nor forge the trail (it may
-- read it: bin/reaper audit runs with the worker's settings).

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'conference_reaper_owner') THEN
    CREATE ROLE conference_reaper_owner LOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'conference_reaper') THEN
    CREATE ROLE conference_reaper LOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'conference_reaper_operator') THEN
    CREATE ROLE conference_reaper_operator LOGIN;
  END IF;
END
$$;

-- The owner creates and alters the reaper's objects (the schema may already exist, owned by the messenger).
CREATE SCHEMA IF NOT EXISTS messenger;
GRANT USAGE, CREATE ON SCHEMA messenger TO conference_reaper_owner;

-- The worker: read what it claims, change only the columns a close and its bookkeeping change.
GRANT USAGE ON SCHEMA messenger TO conference_reaper;

-- The operator: everything the worker may do (retry and requeue change only columns the worker's bookkeeping
-- changes too), plus the pauses and the audit trail (least-privilege-grants.sql).
GRANT conference_reaper TO conference_reaper_operator;
