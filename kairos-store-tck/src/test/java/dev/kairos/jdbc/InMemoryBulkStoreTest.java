package dev.kairos.jdbc;

import dev.kairos.engine.InMemoryStore;
import dev.kairos.spi.JobStore;

/** The bulk contract against the reference store. */
class InMemoryBulkStoreTest extends BulkStoreContract {
  @Override
  protected JobStore newStore() {
    return new InMemoryStore();
  }
}
