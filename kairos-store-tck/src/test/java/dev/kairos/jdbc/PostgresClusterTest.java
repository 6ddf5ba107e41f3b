package dev.kairos.jdbc;

import dev.kairos.tck.ClusterProcessContract;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cluster mode with three child JVMs over PostgreSQL, in a schema of this class's own; the store
 * connections carry an application name, by which they are terminated.
 */
class PostgresClusterTest extends ClusterProcessContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Override
  protected String storeUrl(String prefix) {
    return db.url() + "&ApplicationName=kairos-cluster-" + prefix;
  }

  @Override
  protected String storeUser(String prefix) {
    return PostgresTestDatabase.USER;
  }

  @Override
  protected String resultsUrl(String prefix) {
    return db.url() + "&ApplicationName=kairos-results-" + prefix;
  }

  @Override
  protected String resultsUser() {
    return PostgresTestDatabase.USER;
  }

  @Override
  protected String resultsInitSql() {
    return "SET synchronous_commit = off";
  }

  @Override
  protected String nowSql() {
    return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS NUMERIC(28,9))";
  }

  @Override
  protected int kill(String prefix) {
    return db.terminateConnections("kairos-cluster-" + prefix);
  }
}
