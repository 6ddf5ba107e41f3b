-- Kairos job store, schema version 1 (MySQL 8.0.17+). Keep in step with ../mariadb/V1__jobs.sql,
-- from which it differs only in the collation clause. ${prefix} is replaced by the store's table
-- prefix. Statements end with a semicolon at line end.
--
-- Instants are DECIMAL(28,9) epoch seconds with nanoseconds, as on H2 and PostgreSQL: exact for
-- every java.time.Instant, where DATETIME(6) would cut nanoseconds, end in the year 9999 and be
-- read in the session's time zone. Durations are ISO-8601 text (PT24H); enums are their Java names.
-- Text is utf8mb4 with a binary, NO PAD collation: job keys compare exactly as Java strings do
-- ('a' differs from 'A' and from 'a '). That is utf8mb4_0900_bin on MySQL (8.0.17+; utf8mb4_bin
-- pads), utf8mb4_nopad_bin on MariaDB, which has no 0900 collations: each sits in an executable
-- comment that only its server runs (/*!80017: MySQL 8.0.17+, which MariaDB ignores; /*M!: MariaDB),
-- so these scripts run on both and the test kit runs them on MariaDB. The longest index key,
-- (state, owner), takes 928 bytes, well within InnoDB's 3072.

CREATE TABLE ${prefix}jobs (
  job_key                  VARCHAR(200)  NOT NULL PRIMARY KEY,
  handler                  VARCHAR(200)  NOT NULL,
  data                     LONGTEXT,
  schedule_kind            VARCHAR(32)   NOT NULL,
  fixed_period             VARCHAR(64),
  once_at                  DECIMAL(28,9),
  once_delay               VARCHAR(64),
  cron_expression          VARCHAR(400),
  cron_zone                VARCHAR(100),
  cron_syntax              VARCHAR(32),
  dst_gap                  VARCHAR(32),
  dst_overlap              VARCHAR(32),
  start_at                 DECIMAL(28,9),
  initial_delay            VARCHAR(64),
  misfire_kind             VARCHAR(32),
  misfire_max              INTEGER,
  misfire_threshold        VARCHAR(64),
  retry_max_attempts       INTEGER,
  retry_initial_delay      VARCHAR(64),
  state                    VARCHAR(32)   NOT NULL,
  next_fire_time           DECIMAL(28,9),
  due_time                 DECIMAL(28,9),
  due_kind                 VARCHAR(32)   NOT NULL,
  attempt                  INTEGER       NOT NULL,
  last_scheduled_fire_time DECIMAL(28,9),
  last_start               DECIMAL(28,9),
  last_end                 DECIMAL(28,9),
  last_outcome             VARCHAR(32),
  last_error               VARCHAR(2000),
  run_count                BIGINT        NOT NULL,
  failure_count            BIGINT        NOT NULL,
  version                  BIGINT        NOT NULL,
  owner                    VARCHAR(200),
  lease_until              DECIMAL(28,9),
  claimed_fire             DECIMAL(28,9)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
  /*!80017 COLLATE=utf8mb4_0900_bin */ /*M!100600 COLLATE=utf8mb4_nopad_bin */;

CREATE INDEX ${prefix}jobs_due ON ${prefix}jobs (due_time, job_key);

CREATE TABLE ${prefix}runs (
  id                  BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job_key             VARCHAR(200)  NOT NULL,
  scheduled_fire_time DECIMAL(28,9),
  run_start           DECIMAL(28,9),
  run_end             DECIMAL(28,9),
  outcome             VARCHAR(32)   NOT NULL,
  error               VARCHAR(2000),
  attempt             INTEGER       NOT NULL,
  instance            VARCHAR(200)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
  /*!80017 COLLATE=utf8mb4_0900_bin */ /*M!100600 COLLATE=utf8mb4_nopad_bin */;

CREATE INDEX ${prefix}runs_job ON ${prefix}runs (job_key, id);
