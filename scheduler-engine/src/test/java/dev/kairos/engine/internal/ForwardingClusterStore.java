package dev.kairos.engine.internal;

import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster store for tests that passes the SPI's calls to an {@link InMemoryStore}, batched claims
 * and live instances included; clustered as its delegate is (a {@link InMemoryStore#shared shared}
 * one). A test overrides the calls it counts, holds or breaks.
 */
class ForwardingClusterStore extends ForwardingStore implements ClusterStore {
  /** Over a shared store on {@code clock}: cluster mode. */
  ForwardingClusterStore(TimeSource clock) {
    this(InMemoryStore.shared(clock));
  }

  /** Over {@code delegate}: cluster mode if it is shared. */
  ForwardingClusterStore(InMemoryStore delegate) {
    super(delegate);
  }

  @Override
  public boolean clustered() {
    return delegate.clustered();
  }

  @Override
  public void register(String instance) {
    delegate.register(instance);
  }

  @Override
  public void heartbeat(String instance) {
    delegate.heartbeat(instance);
  }

  @Override
  public void deregister(String instance) {
    delegate.deregister(instance);
  }

  @Override
  public Optional<Claimed> claim(JobRecord expected, String instance, Duration lease) {
    return delegate.claim(expected, instance, lease);
  }

  @Override
  public List<Optional<Claimed>> claimAll(
      List<JobRecord> expected, String instance, Duration lease) {
    return delegate.claimAll(expected, instance, lease);
  }

  @Override
  public int renewClaims(String instance, Map<String, Instant> claimedFires, Duration lease) {
    return delegate.renewClaims(instance, claimedFires, lease);
  }

  @Override
  public boolean release(String key, String instance, Instant claimedFire) {
    return delegate.release(key, instance, claimedFire);
  }

  @Override
  public List<JobRecord> expiredClaims(int limit) {
    return delegate.expiredClaims(limit);
  }

  @Override
  public Changes changesSince(long cursor, int limit) {
    return delegate.changesSince(cursor, limit);
  }

  @Override
  public long changeCursor() {
    return delegate.changeCursor();
  }

  @Override
  public boolean awaitChange(Duration max) throws InterruptedException {
    return delegate.awaitChange(max);
  }

  @Override
  public List<String> liveInstances(Duration within) {
    return delegate.liveInstances(within);
  }

  @Override
  public Map<String, Instant> instances() {
    return delegate.instances();
  }

  @Override
  public Instant storeNow() {
    return delegate.storeNow();
  }
}
