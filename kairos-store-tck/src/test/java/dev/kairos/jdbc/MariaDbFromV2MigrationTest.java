package dev.kairos.jdbc;

import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link FromV2MigrationContract} on MariaDB, in a database of this class's own. */
class MariaDbFromV2MigrationTest extends FromV2MigrationContract {
  private static MariaDbTestDatabase db;

  @BeforeAll
  static void createDatabase() {
    db = MariaDbTestDatabase.create();
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
    return "mariadb";
  }
}
