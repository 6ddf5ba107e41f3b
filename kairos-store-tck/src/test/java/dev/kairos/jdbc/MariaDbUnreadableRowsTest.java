package dev.kairos.jdbc;

import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link UnreadableRowsContract} on MariaDB, in a database of this class's own. */
class MariaDbUnreadableRowsTest extends UnreadableRowsContract {
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
}
