-- db-scheduler's scheduled_tasks table for MySQL / MariaDB, after the MySQL schema its README
-- documents (db-scheduler/src/test/resources/mysql_tables.sql); its jar ships no DDL. TIMESTAMP(6)
-- columns hold UTC (the adapter turns on alwaysPersistTimestampInUTC, as db-scheduler advises for
-- these databases); the nullable ones say NULL so that no server setting gives them a default.
CREATE TABLE scheduled_tasks (
  task_name            VARCHAR(100) NOT NULL,
  task_instance        VARCHAR(100) NOT NULL,
  task_data            BLOB,
  execution_time       TIMESTAMP(6) NOT NULL,
  picked               BOOLEAN      NOT NULL,
  picked_by            VARCHAR(50),
  last_success         TIMESTAMP(6) NULL,
  last_failure         TIMESTAMP(6) NULL,
  consecutive_failures INT,
  last_heartbeat       TIMESTAMP(6) NULL,
  version              BIGINT       NOT NULL,
  priority             SMALLINT,
  PRIMARY KEY (task_name, task_instance),
  INDEX execution_time_idx (execution_time),
  INDEX last_heartbeat_idx (last_heartbeat),
  INDEX priority_execution_time_idx (priority DESC, execution_time ASC)
) ENGINE = InnoDB;
