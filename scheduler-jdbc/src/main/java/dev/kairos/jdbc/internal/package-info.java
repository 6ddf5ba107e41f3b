/**
 * The JDBC store's implementation: SQL, dialects, row mapping and schema migrations. <b>Not
 * API</b>: anything here may change in any release without notice; use {@link
 * dev.kairos.jdbc.JdbcStore}.
 */
package dev.kairos.jdbc.internal;
