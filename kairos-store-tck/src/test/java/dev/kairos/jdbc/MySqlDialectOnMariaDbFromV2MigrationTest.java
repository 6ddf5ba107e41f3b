package dev.kairos.jdbc;

import dev.kairos.jdbc.internal.MySqlOnMariaDb;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link FromV2MigrationContract} with the MySQL dialect and scripts, through Connector/J, on
 * MariaDB.
 */
class MySqlDialectOnMariaDbFromV2MigrationTest extends FromV2MigrationContract {
  private static MySqlOnMariaDb db;

  @BeforeAll
  static void createDatabase() {
    db = MySqlOnMariaDb.create();
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
    return "mysql";
  }
}
