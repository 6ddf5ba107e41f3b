-- Kairos job store, schema version 2 (MySQL 8.0.17+): cluster mode. Keep in step with
-- ../mariadb/V2__cluster.sql. ${prefix} is replaced by the store's table prefix. Statements end
-- with a semicolon at line end.
--
-- Claims use the jobs columns reserved in version 1 (owner, lease_until, claimed_fire) and the new
-- flag recovery. The change feed: every write of a job row sets change_seq and changed_at
-- (database clock); a deleted job leaves a tombstone in deleted_jobs, trimmed after ten minutes.
-- Instants are DECIMAL(28,9) epoch seconds, as in version 1. MySQL has no sequences: the stamps
-- come from the AUTO_INCREMENT counter of change_stamps (value v gives the stamps v * 65536 + i of
-- one statement's rows; each row is deleted by the transaction that inserted it, the counter
-- stays, persisted across restarts). This table replaces MariaDB's CREATE SEQUENCE.

ALTER TABLE ${prefix}jobs ADD COLUMN recovery BOOLEAN;

ALTER TABLE ${prefix}jobs ADD COLUMN change_seq BIGINT;

ALTER TABLE ${prefix}jobs ADD COLUMN changed_at DECIMAL(28,9);

CREATE TABLE ${prefix}change_stamps (
  seq                      BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY
) ENGINE=InnoDB;

CREATE INDEX ${prefix}jobs_change ON ${prefix}jobs (change_seq);

CREATE INDEX ${prefix}jobs_lease ON ${prefix}jobs (lease_until);

CREATE INDEX ${prefix}jobs_state ON ${prefix}jobs (state, owner);

CREATE TABLE ${prefix}deleted_jobs (
  change_seq               BIGINT        NOT NULL PRIMARY KEY,
  job_key                  VARCHAR(200)  NOT NULL,
  deleted_at               DECIMAL(28,9) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
  /*!80017 COLLATE=utf8mb4_0900_bin */ /*M!100600 COLLATE=utf8mb4_nopad_bin */;

CREATE INDEX ${prefix}deleted_jobs_at ON ${prefix}deleted_jobs (deleted_at);

CREATE TABLE ${prefix}instances (
  instance                 VARCHAR(200)  NOT NULL PRIMARY KEY,
  started                  DECIMAL(28,9) NOT NULL,
  last_heartbeat           DECIMAL(28,9) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
  /*!80017 COLLATE=utf8mb4_0900_bin */ /*M!100600 COLLATE=utf8mb4_nopad_bin */;
