package dev.kairos.jdbc;

import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.RestartContract;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restarts over PostgreSQL, in a schema of this class's own. */
class PostgresRestartTest extends RestartContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }
}
