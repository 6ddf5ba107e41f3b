package dev.kairos.jdbc;

import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link FromV2MigrationContract} on PostgreSQL, in a database of this class's own. */
class PostgresFromV2MigrationTest extends FromV2MigrationContract {
  private static PostgresTestDatabase db;

  @BeforeAll
  static void createDatabase() {
    db = PostgresTestDatabase.create();
  }

  @AfterAll
  static void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

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
