-- Kairos job store, schema version 12 (MariaDB): nothing to change. Version 12 makes H2's run-history
-- ids come from a larger cache (see ../h2/V12__run_id_cache.sql); here every dialect keeps the same
-- version numbers, so this script only records the version: its one statement changes no row.
-- ${prefix} is replaced by the store's table prefix. Statements end with a semicolon at line end.

UPDATE ${prefix}limits SET limit_name = limit_name WHERE 1 = 0;
