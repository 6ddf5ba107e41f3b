-- Kairos job store, schema version 2 (MariaDB 10.6+): cluster mode. Keep in step with
-- ../postgresql/V2__cluster.sql. ${prefix} is replaced by the store's table prefix. Statements end
-- with a semicolon at line end.
--
-- Claims use the jobs columns reserved in version 1 (owner, lease_until, claimed_fire) and the new
-- flag recovery. The change feed: every write of a job row sets change_seq from the sequence and
-- changed_at (database clock); a deleted job leaves a tombstone in deleted_jobs, trimmed after ten
-- minutes. Instants are DECIMAL(28,9) epoch seconds, as in version 1. MariaDB has sequences
-- (10.3+); MySQL 8 has none, which is one reason these scripts are MariaDB's only.

ALTER TABLE ${prefix}jobs ADD COLUMN recovery BOOLEAN;

ALTER TABLE ${prefix}jobs ADD COLUMN change_seq BIGINT;

ALTER TABLE ${prefix}jobs ADD COLUMN changed_at DECIMAL(28,9);

CREATE SEQUENCE ${prefix}change_seq;

CREATE INDEX ${prefix}jobs_change ON ${prefix}jobs (change_seq);

CREATE INDEX ${prefix}jobs_lease ON ${prefix}jobs (lease_until);

CREATE INDEX ${prefix}jobs_state ON ${prefix}jobs (state, owner);

CREATE TABLE ${prefix}deleted_jobs (
  change_seq               BIGINT        NOT NULL PRIMARY KEY,
  job_key                  VARCHAR(200)  NOT NULL,
  deleted_at               DECIMAL(28,9) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX ${prefix}deleted_jobs_at ON ${prefix}deleted_jobs (deleted_at);

CREATE TABLE ${prefix}instances (
  instance                 VARCHAR(200)  NOT NULL PRIMARY KEY,
  started                  DECIMAL(28,9) NOT NULL,
  last_heartbeat           DECIMAL(28,9) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
