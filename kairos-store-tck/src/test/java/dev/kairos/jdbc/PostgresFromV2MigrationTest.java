package dev.kairos.jdbc;

import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link FromV2MigrationContract} on PostgreSQL, in a database of this class's own. */
class PostgresFromV2MigrationTest extends FromV2MigrationContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Override
  protected String folder() {
    return "postgresql";
  }
}
