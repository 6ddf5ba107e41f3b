-- Kairos job store, schema version 5 (PostgreSQL): overlap policy. Keep in step with
-- ../h2/V5__overlap.sql. ${prefix} is replaced by the store's table prefix. Statements end
-- with a semicolon at line end.
--
-- One nullable definition column: overlap_policy (JobSpec.overlap(...)): FORBID, BUFFER_ONE or
-- SKIP. Null, as in every row written before version 5, reads as FORBID, the default.

ALTER TABLE ${prefix}jobs ADD COLUMN
  overlap_policy           VARCHAR(16);
