package dev.kairos.jdbc;

import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.OutageContract;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Store outages on MariaDB, in a database of this class's own: {@code KILL CONNECTION} ends every
 * connection whose current database is it (MariaDB's process list has no application names).
 */
class MariaDbOutageTest extends OutageContract {
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
  protected DataSource dataSource(String name, int size) {
    db.assumeReachable();
    return db.dataSource(name, size);
  }

  @Override
  protected int killConnections(String name) {
    return db.killConnections();
  }
}
