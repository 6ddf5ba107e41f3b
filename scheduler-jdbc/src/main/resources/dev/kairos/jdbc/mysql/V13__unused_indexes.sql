-- Kairos job store, schema version 13 (MySQL): nothing to change. Version 13 drops two indexes
-- that H2 kept for no query (see ../h2/V13__unused_indexes.sql); here every dialect keeps the same
-- version numbers, so this script only records the version: its one statement changes no row.
-- ${prefix} is replaced by the store's table prefix. Statements end with a semicolon at line end.

UPDATE ${prefix}limits SET limit_name = limit_name WHERE 1 = 0;
