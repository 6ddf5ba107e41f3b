-- Kairos job store, schema version 7 (H2): calendars (JobSpec.excluding, Scheduler.putCalendar).
-- Keep in step with ../postgresql/V7__calendars.sql. Versions 5 and 6 are left to changes made
-- alongside; Flyway applies the scripts it has in order. ${prefix} is replaced by the store's table
-- prefix. Statements end with a semicolon at line end.
--
-- Two nullable definition columns of the jobs table: calendar_name (the stored calendar the job is
-- attached to; null: none) and calendar_policy (SKIP or NEXT_ALLOWED; null exactly when
-- calendar_name is). Rows written before version 7 read as attached to no calendar.
-- A calendar is one row of calendars (zone, one column per day of the week saying whether it is a
-- business day, the time-of-day window as ISO-8601 local times or both null, the last-business-day
-- rule) and one row of calendar_dates per excluded date.

ALTER TABLE ${prefix}jobs ADD COLUMN
  calendar_name            VARCHAR(200);

ALTER TABLE ${prefix}jobs ADD COLUMN
  calendar_policy          VARCHAR(32);

CREATE INDEX ${prefix}jobs_calendar ON ${prefix}jobs (calendar_name);

CREATE TABLE ${prefix}calendars (
  calendar_name            VARCHAR(200)  NOT NULL PRIMARY KEY,
  zone_id                  VARCHAR(100)  NOT NULL,
  monday                   BOOLEAN       NOT NULL,
  tuesday                  BOOLEAN       NOT NULL,
  wednesday                BOOLEAN       NOT NULL,
  thursday                 BOOLEAN       NOT NULL,
  friday                   BOOLEAN       NOT NULL,
  saturday                 BOOLEAN       NOT NULL,
  sunday                   BOOLEAN       NOT NULL,
  window_from              VARCHAR(32),
  window_until             VARCHAR(32),
  last_business_day        BOOLEAN       NOT NULL
);

CREATE TABLE ${prefix}calendar_dates (
  calendar_name            VARCHAR(200)  NOT NULL,
  excluded_date            DATE          NOT NULL,
  PRIMARY KEY (calendar_name, excluded_date)
);
