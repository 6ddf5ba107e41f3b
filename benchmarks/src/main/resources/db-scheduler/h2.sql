-- db-scheduler's scheduled_tasks table for H2: the documented HSQLDB/H2 table
-- (db-scheduler/src/test/resources/hsql_tables.sql) with the indexes of the PostgreSQL script,
-- which the H2 script leaves out; its jar ships no DDL.
create table scheduled_tasks (
  task_name varchar(100),
  task_instance varchar(100),
  task_data blob,
  execution_time TIMESTAMP WITH TIME ZONE,
  picked BIT,
  picked_by varchar(50),
  last_success TIMESTAMP WITH TIME ZONE,
  last_failure TIMESTAMP WITH TIME ZONE,
  consecutive_failures INT,
  last_heartbeat TIMESTAMP WITH TIME ZONE,
  version BIGINT,
  priority SMALLINT,
  PRIMARY KEY (task_name, task_instance)
);

CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time);
CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat);
CREATE INDEX priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc);
