package dev.kairos.jdbc;

import dev.kairos.spi.ClusterStore;
import dev.kairos.tck.ClusterStoreContract;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cluster contract on a PostgreSQL whose sessions default to SERIALIZABLE: the store's pool
 * runs its transactions at READ COMMITTED all the same. Before, racing claims of one fire failed
 * with serialization errors and more instances than a limit's permits won a concurrent run.
 *
 * <p>Tagged {@code long}: not in the test command (the cluster contract's second run on the
 * PostgreSQL server after {@code PostgresClusterStoreTest}'s, about 40 s; {@code
 * IsolationLevelTest} checks the level in the test command); CI runs it in a second one (README,
 * "Two commands").
 */
@org.junit.jupiter.api.Tag("long")
class PostgresSerializableClusterStoreTest extends ClusterStoreContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected Supplier<ClusterStore> sharedTables() {
    db.assumeReachable();
    String prefix = JdbcStoreContract.nextPrefix();
    return () ->
        db.withDefaultIsolation("serializable")
            .builder()
            .tablePrefix(prefix)
            .clustered(true)
            .changeSettle(SETTLE)
            .build()
            .jobStore();
  }
}
