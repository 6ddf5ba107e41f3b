package dev.kairos.jdbc;

import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.MariaDbTestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The bulk contract on MariaDB, in a database of this class's own. */
class MariaDbBulkStoreTest extends BulkStoreContract {
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
  protected JobStore newStore() {
    db.assumeReachable();
    return db.builder().tablePrefix(JdbcStoreContract.nextPrefix()).build().jobStore();
  }
}
