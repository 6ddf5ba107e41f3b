package dev.kairos.jdbc;

import dev.kairos.jdbc.internal.MySqlOnMariaDb;
import dev.kairos.spi.ClusterStore;
import dev.kairos.tck.ClusterStoreContract;
import dev.kairos.tck.JdbcStoreContract;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The cluster contract with the MySQL dialect through Connector/J, against MariaDB.
 *
 * <p>Tagged {@code long}: not in the test command (the cluster contract's second run on the MariaDB
 * server after {@code MariaDbClusterStoreTest}'s, about 30 s); CI runs it in a second one (README,
 * "Two commands").
 */
@org.junit.jupiter.api.Tag("long")
class MySqlDialectOnMariaDbClusterStoreTest extends ClusterStoreContract {
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
  protected Supplier<ClusterStore> sharedTables() {
    db.assumeReachable();
    String prefix = JdbcStoreContract.nextPrefix();
    return () ->
        db.builder().tablePrefix(prefix).clustered(true).changeSettle(SETTLE).build().jobStore();
  }
}
