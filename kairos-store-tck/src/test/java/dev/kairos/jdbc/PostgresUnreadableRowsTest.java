package dev.kairos.jdbc;

import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link UnreadableRowsContract} on PostgreSQL, in a schema of this class's own. */
class PostgresUnreadableRowsTest extends UnreadableRowsContract {
  private static PostgresTestDatabase db;

  @BeforeAll
  static void createSchema() {
    db = PostgresTestDatabase.create();
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
    }
  }

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }
}
