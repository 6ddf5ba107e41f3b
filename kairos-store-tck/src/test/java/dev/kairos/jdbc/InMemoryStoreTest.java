package dev.kairos.jdbc;

import dev.kairos.engine.InMemoryStore;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.JobStoreContract;

/** The contract against the reference store, so the contract itself is known to be right. */
class InMemoryStoreTest extends JobStoreContract {
  @Override
  protected JobStore newStore(int historyPerJob, boolean keepCompleted) {
    return new InMemoryStore(historyPerJob, keepCompleted);
  }
}
