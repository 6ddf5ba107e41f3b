package dev.kairos.engine.internal;

import dev.kairos.RunRecord;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A store for tests that passes the SPI's required calls to an {@link InMemoryStore}; the optional
 * ones keep the SPI's defaults. A test overrides the calls it counts or breaks.
 */
class ForwardingStore implements JobStore {
  /** The store the calls go to. */
  final InMemoryStore delegate;

  /** Over a fresh, unshared {@link InMemoryStore}. */
  ForwardingStore() {
    this(new InMemoryStore());
  }

  /** Over {@code delegate} (e.g. a {@link InMemoryStore#shared shared} one). */
  ForwardingStore(InMemoryStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public Upsert upsert(JobRecord fresh) {
    return delegate.upsert(fresh);
  }

  @Override
  public Optional<JobRecord> find(String key) {
    return delegate.find(key);
  }

  @Override
  public List<JobRecord> findAll() {
    return delegate.findAll();
  }

  @Override
  public Optional<JobRecord> replace(JobRecord updated, long expectedVersion) {
    return delegate.replace(updated, expectedVersion);
  }

  @Override
  public boolean delete(String key) {
    return delegate.delete(key);
  }

  @Override
  public List<JobRecord> due(WindowCursor after, Instant before, int limit) {
    return delegate.due(after, before, limit);
  }

  @Override
  public void runStarted(String key, Instant scheduledFireTime, Instant start, String instance) {
    delegate.runStarted(key, scheduledFireTime, start, instance);
  }

  @Override
  public Optional<JobRecord> runFinished(RunResult result) {
    return delegate.runFinished(result);
  }

  @Override
  public List<RunRecord> history(String key, int limit) {
    return delegate.history(key, limit);
  }
}
