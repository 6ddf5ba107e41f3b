package dev.kairos.jdbc;

import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The bulk contract on PostgreSQL, in a schema of this class's own. */
class PostgresBulkStoreTest extends BulkStoreContract {
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
  protected JobStore newStore() {
    db.assumeReachable();
    return db.builder().tablePrefix(JdbcStoreContract.nextPrefix()).build().jobStore();
  }
}
