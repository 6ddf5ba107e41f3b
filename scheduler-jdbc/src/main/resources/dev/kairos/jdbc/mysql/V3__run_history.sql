-- Kairos job store, schema version 3 (MySQL 8.0.17+): run history says what the misfire policy and
-- recovery did. Keep in step with ../mariadb/V3__run_history.sql. ${prefix} is replaced by the
-- store's table prefix. Statements end with a semicolon at line end.
--
-- recovery: the run repeated a fire whose earlier run was cut off by a crash or a lost instance.
-- missed_fires: how many missed fires the run stood for (0 on time, 1 per catch-up fire, the
-- number replaced under fire-once). Rows written before version 3 read as no recovery, 0 missed.

ALTER TABLE ${prefix}runs ADD COLUMN
  recovery            BOOLEAN       DEFAULT FALSE NOT NULL;

ALTER TABLE ${prefix}runs ADD COLUMN
  missed_fires        INTEGER       DEFAULT 0 NOT NULL;
