-- Kairos job store, schema version 4 (MySQL 8.0.17+): catch-up window and jitter. Keep in step with
-- ../mariadb/V4__catch_up_window.sql. ${prefix} is replaced by the store's table prefix. Statements end
-- with a semicolon at line end.
--
-- Two nullable definition columns, ISO-8601 duration text as the other durations of version 1:
-- catch_up_window (Misfire.catchUp().within(...); null: none, and always null for other misfire
-- kinds) and jitter (JobSpec.jitter(...); null: none). Rows written before version 4 read as neither.

ALTER TABLE ${prefix}jobs ADD COLUMN
  catch_up_window          VARCHAR(64);

ALTER TABLE ${prefix}jobs ADD COLUMN
  jitter                   VARCHAR(64);
