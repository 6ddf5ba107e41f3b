package dev.kairos.jdbc;

import dev.kairos.jdbc.internal.MySqlOnMariaDb;
import dev.kairos.tck.RestartContract;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Restarts with the MySQL dialect through Connector/J, against MariaDB. */
class MySqlDialectOnMariaDbRestartTest extends RestartContract {
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
}
