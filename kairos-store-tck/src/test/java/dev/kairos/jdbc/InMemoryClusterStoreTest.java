package dev.kairos.jdbc;

import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.ClusterStore;
import dev.kairos.tck.ClusterStoreContract;
import java.util.function.Supplier;

/**
 * The cluster contract against the reference store, so the contract itself is known to be right.
 */
class InMemoryClusterStoreTest extends ClusterStoreContract {
  @Override
  protected Supplier<ClusterStore> sharedTables() {
    InMemoryStore shared = InMemoryStore.shared(TimeSource.system());
    return () -> shared;
  }
}
