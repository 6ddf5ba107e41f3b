-- Kairos job store, schema version 6 (PostgreSQL): backfill slots. Keep in step with
-- ../h2/V6__backfill.sql. ${prefix} is replaced by the store's table prefix. Statements end
-- with a semicolon at line end. (Version 5 is another change's; Flyway applies versions in order
-- and allows the gap.)
--
-- One row per slot that Scheduler.backfill queued: the job's key and the slot's fire time (the
-- primary key, so a slot is queued once whatever its state), its state (PENDING, RUNNING, DONE; done
-- rows are kept so that a later backfill of the same window queues nothing) and, while RUNNING, the
-- instance that claimed it (owner). Claims are a compare-and-set on state. Deleting a job deletes
-- its rows. Instants are NUMERIC(28,9) epoch seconds, as in version 1.

CREATE TABLE ${prefix}backfill (
  job_key                  VARCHAR(200)  NOT NULL,
  fire_time                NUMERIC(28,9) NOT NULL,
  state                    VARCHAR(16)   NOT NULL,
  owner                    VARCHAR(200),
  PRIMARY KEY (job_key, fire_time)
);

CREATE INDEX ${prefix}backfill_state ON ${prefix}backfill (state, job_key, fire_time);
