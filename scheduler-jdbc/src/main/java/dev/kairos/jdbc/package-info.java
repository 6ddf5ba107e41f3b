/**
 * A persistent job store over JDBC: {@link dev.kairos.jdbc.JdbcStore}, for H2 (embedded file),
 * PostgreSQL and MariaDB. The implementation, including that of the store SPI behind {@link
 * dev.kairos.jdbc.JdbcStore#jobStore()}, lives in {@code dev.kairos.jdbc.internal}, which is not
 * API.
 */
package dev.kairos.jdbc;
