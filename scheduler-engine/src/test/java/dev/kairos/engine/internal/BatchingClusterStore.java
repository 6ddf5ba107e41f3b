package dev.kairos.engine.internal;

import dev.kairos.engine.InMemoryStore;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.RunResult;
import java.util.List;
import java.util.Optional;

/**
 * A {@link ForwardingClusterStore} that says it batches runs, so that the engine writes back
 * through its queue and claims due fires in batches ({@code claimAll}); a batch of write-backs is
 * written one by one.
 */
class BatchingClusterStore extends ForwardingClusterStore {
  /** Over {@code delegate}: cluster mode if it is shared. */
  BatchingClusterStore(InMemoryStore delegate) {
    super(delegate);
  }

  @Override
  public boolean batchesRuns() {
    return true;
  }

  @Override
  public List<Optional<JobRecord>> runsFinished(List<RunResult> results) {
    return results.stream().map(super::runFinished).toList();
  }
}
