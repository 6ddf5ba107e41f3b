package dev.kairos.jdbc;

import dev.kairos.tck.OutageContract;
import dev.kairos.tck.PostgresTestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Store outages on PostgreSQL, in a schema of this class's own: the pool's connections carry an
 * application name of the test's own, by which {@code pg_terminate_backend} finds them.
 */
class PostgresOutageTest extends OutageContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected DataSource dataSource(String name, int size) {
    db.assumeReachable();
    return db.dataSource(name, size);
  }

  @Override
  protected int killConnections(String name) {
    return db.terminateConnections(name);
  }
}
