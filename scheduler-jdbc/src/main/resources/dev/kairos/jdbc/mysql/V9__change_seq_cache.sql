-- Kairos job store, schema version 9 (MySQL): nothing to change. Version 9 makes H2's change-feed
-- sequence hand out values from a larger cache (see ../h2/V9__change_seq_cache.sql); here every
-- dialect keeps the same version numbers, so this script only records the version: its one
-- statement changes no row. ${prefix} is replaced by the store's table prefix. Statements end with
-- a semicolon at line end.

UPDATE ${prefix}limits SET limit_name = limit_name WHERE 1 = 0;
