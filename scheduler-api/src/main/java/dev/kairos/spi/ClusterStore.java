package dev.kairos.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A store that several scheduler instances can share. Each instance keeps its own heap; before
 * running a due fire it claims it here, so each fire runs on one instance. Liveness and lease
 * expiry are judged by the store's clock ({@link #storeNow()}), never by comparing two instances'
 * clocks.
 *
 * <p>A claim increments the job's version, so the write-back of an instance that lost its lease
 * (and whose fire was recovered elsewhere) is stale and cannot overwrite the schedule state.
 */
public interface ClusterStore extends JobStore {

  /** True when this store is switched to cluster mode; otherwise the engine never claims. */
  boolean clustered();

  /** Registers (or re-registers) a live instance. */
  void register(String instance);

  /** Records that the instance is alive (store clock). */
  void heartbeat(String instance);

  /** Removes an instance that shuts down cleanly. */
  void deregister(String instance);

  /**
   * Claims the fire of {@code expected} for {@code instance}: succeeds if the job still has {@code
   * expected}'s version and due time and nobody holds a live lease on it, or if the lease of a
   * previous claim has expired (then the claimed record says so: a recovery).
   *
   * @param lease how long the claim holds without renewal, by the store's clock
   * @return the claimed record (state RUNNING, version incremented), or empty if the claim lost
   */
  Optional<Claimed> claim(JobRecord expected, String instance, Duration lease);

  /** Extends the leases this instance holds on the given running jobs. Returns how many. */
  int renewLeases(String instance, Collection<String> keys, Duration lease);

  /**
   * Jobs whose claim's lease has expired (their instance died mid-run), at most {@code limit}:
   * RUNNING jobs without a live lease, and jobs with a due time that were changed during the dead
   * instance's run (so no longer RUNNING) but still carry its expired lease.
   */
  List<JobRecord> expiredClaims(int limit);

  /**
   * Changes of jobs made after {@code cursor} (by any instance), in order, at most {@code limit}.
   * Start with {@link #changeCursor()}.
   */
  Changes changesSince(long cursor, int limit);

  /** The current end of the change feed: changes made later have a higher cursor. */
  long changeCursor();

  /**
   * Blocks up to {@code max} (real time) for a change made through this store, by any instance (for
   * example PostgreSQL {@code LISTEN/NOTIFY}); a store without notifications simply waits. Returns
   * true if notified; the caller reads {@link #changesSince} either way.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  boolean awaitChange(Duration max) throws InterruptedException;

  /** The store's clock, which judges leases and liveness. */
  Instant storeNow();

  /**
   * A won claim.
   *
   * @param record the job as claimed (state RUNNING, new version)
   * @param recovery true if it took over a fire whose previous claim's lease had expired
   */
  record Claimed(JobRecord record, boolean recovery) {}

  /**
   * A slice of the change feed.
   *
   * @param changed jobs created or changed, as they are now
   * @param deleted keys of jobs deleted
   * @param cursor the cursor to continue from
   */
  record Changes(List<JobRecord> changed, List<String> deleted, long cursor) {}
}
