package dev.kairos.jdbc;

import dev.kairos.spi.ClusterStore;
import dev.kairos.tck.ClusterStoreContract;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.MariaDbTestDatabase;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The cluster contract on MariaDB (polled: no notifications), in a database of its own. */
class MariaDbClusterStoreTest extends ClusterStoreContract {
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
  protected Supplier<ClusterStore> sharedTables() {
    db.assumeReachable();
    String prefix = JdbcStoreContract.nextPrefix();
    return () ->
        db.builder().tablePrefix(prefix).clustered(true).changeSettle(SETTLE).build().jobStore();
  }
}
