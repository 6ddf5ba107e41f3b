-- Kairos job store, schema version 13 (H2): two indexes of the job table that no query here uses
-- are dropped. ${prefix} is replaced by the store's table prefix. Statements end with a semicolon
-- at line end.
--
-- H2 has no partial indexes (PostgreSQL's version 11), so every row had an entry in both: each job
-- inserted wrote two more index entries, and each start mark and each write-back that changed a
-- row's state moved one; about a seventh of the time of scheduling 100,000 new jobs in bulk. The state index served no query on H2 (the one
-- query that names RUNNING rows, the cluster's look for expired claims, reads the table in key
-- order whatever indexes exist); the calendar index only the list of a calendar's jobs, read when
-- that calendar is replaced or removed, which now reads the table.

DROP INDEX ${prefix}jobs_state;
DROP INDEX ${prefix}jobs_calendar;
