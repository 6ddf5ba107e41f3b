package dev.kairos.jdbc;

import dev.kairos.spi.ClusterStore;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The cluster contract on H2: store objects with pools of their own over one in-memory database
 * (what an H2 server would look like to several processes, without the server).
 */
class H2ClusterStoreTest extends ClusterStoreContract {
  @Override
  protected Supplier<ClusterStore> sharedTables() {
    String url = "jdbc:h2:mem:cluster-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=10";
    return () ->
        JdbcStore.builder().url(url).poolSize(4).clustered(true).changeSettle(SETTLE).build();
  }
}
