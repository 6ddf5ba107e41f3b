/**
 * The JDBC store's implementation: the store SPI ({@link dev.kairos.jdbc.internal.JdbcJobStore},
 * which {@code JdbcStore.jobStore()} hands out as a {@code ClusterStore}), SQL, dialects, row
 * mapping and schema migrations. <b>Not API</b>: anything here may change in any release without
 * notice; use {@link dev.kairos.jdbc.JdbcStore}.
 */
package dev.kairos.jdbc.internal;
