-- Kairos job store, schema version 11 (PostgreSQL): three indexes of the job table hold only the
-- rows their queries look for. ${prefix} is replaced by the store's table prefix. Statements end
-- with a semicolon at line end.
--
-- Most rows are SCHEDULED, unclaimed and without a calendar, and every job written (scheduled,
-- or written back after a run, which moves its due time and so cannot be a heap-only update) put
-- an entry for that row in all six indexes. The lease index is read only for leases that expire
-- (lease_until <= now, > now), the state index only for RUNNING rows, the calendar index only for
-- one calendar's jobs: each of those conditions implies the index's predicate, so the planner
-- still uses them, and a row outside the predicate costs these indexes nothing.

DROP INDEX ${prefix}jobs_lease;
CREATE INDEX ${prefix}jobs_lease ON ${prefix}jobs (lease_until) WHERE lease_until IS NOT NULL;
DROP INDEX ${prefix}jobs_state;
CREATE INDEX ${prefix}jobs_state ON ${prefix}jobs (state, owner) WHERE state = 'RUNNING';
DROP INDEX ${prefix}jobs_calendar;
CREATE INDEX ${prefix}jobs_calendar ON ${prefix}jobs (calendar_name) WHERE calendar_name IS NOT NULL;
