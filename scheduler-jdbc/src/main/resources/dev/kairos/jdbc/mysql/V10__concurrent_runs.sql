-- Kairos job store, schema version 10 (MySQL): concurrent runs of one job (Overlap.allow).
-- ${prefix} is replaced by the store's table prefix. Statements end with a semicolon at line end.
--
-- A run of a job under allow(n) is recorded, while it goes on, as a row of the backfill table of
-- kind RUN (state RUNNING, owner: its instance), written with the job's schedule in the
-- transaction that starts it and deleted with its history row when it ends. A RUN row left by a
-- crash is given back (PENDING) as a backfill claim is, and run again with recovery() true. The
-- key stays (job_key, fire_time): a fire is recorded once, as a backfill slot or as a run.

ALTER TABLE ${prefix}backfill ADD COLUMN
  kind                     VARCHAR(16)   DEFAULT 'BACKFILL' NOT NULL;
