package dev.kairos.jdbc;

import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link UnreadableRowsContract} on PostgreSQL, in a schema of this class's own. */
class PostgresUnreadableRowsTest extends UnreadableRowsContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }
}
