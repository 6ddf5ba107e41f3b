/**
 * A persistent job store over JDBC: {@link dev.kairos.jdbc.JdbcStore}, for H2 (embedded file) and
 * PostgreSQL. The implementation lives in {@code dev.kairos.jdbc.internal}, which is not API.
 */
package dev.kairos.jdbc;
