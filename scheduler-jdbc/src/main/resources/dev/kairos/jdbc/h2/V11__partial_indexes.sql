-- Kairos job store, schema version 11 (H2): nothing to change. Version 11 makes three of
-- PostgreSQL's job-table indexes partial (see ../postgresql/V11__partial_indexes.sql), which this
-- database does not support; every dialect keeps the same version numbers, so this script only
-- records the version: its one statement changes no row. ${prefix} is replaced by the store's
-- table prefix. Statements end with a semicolon at line end.

UPDATE ${prefix}limits SET limit_name = limit_name WHERE 1 = 0;
