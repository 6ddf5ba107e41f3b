-- Kairos job store, schema version 14 (MariaDB 10.6+): the run history says which runs were
-- backfill runs. Keep in step with ../mysql/V14__run_backfill_flag.sql. ${prefix} is replaced by
-- the store's table prefix. Statements end with a semicolon at line end.
--
-- backfill: the run was one of Scheduler.backfill's, a past fire run again on purpose, so its start
-- minus its fire time is no lateness. Rows written before version 14 read as no backfill run.

ALTER TABLE ${prefix}runs ADD COLUMN
  backfill            BOOLEAN       DEFAULT FALSE NOT NULL;
