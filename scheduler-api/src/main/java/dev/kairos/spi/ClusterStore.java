package dev.kairos.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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

  /**
   * True when this store is switched to cluster mode; otherwise the engine never claims.
   *
   * @return whether the store is in cluster mode
   */
  boolean clustered();

  /**
   * Registers (or re-registers) a live instance.
   *
   * @param instance the instance id
   */
  void register(String instance);

  /**
   * Records that the instance is alive (store clock).
   *
   * @param instance the instance id
   */
  void heartbeat(String instance);

  /**
   * Removes an instance that shuts down cleanly.
   *
   * @param instance the instance id
   */
  void deregister(String instance);

  /**
   * Claims the fire of {@code expected} for {@code instance}: succeeds if the job still has {@code
   * expected}'s version and due time, that due time has come by the store's clock ({@link
   * #storeNow()}: an instance whose clock runs ahead cannot start a fire early), and nobody holds a
   * live lease on it; or if the lease of a previous claim has expired (then the claimed record says
   * so: a recovery). The claimed record's last start is the store's time of the claim.
   *
   * @param expected the record the fire was read from
   * @param instance the claiming instance
   * @param lease how long the claim holds without renewal, by the store's clock
   * @return the claimed record (state RUNNING, version incremented), or empty if the claim lost
   */
  Optional<Claimed> claim(JobRecord expected, String instance, Duration lease);

  /**
   * Claims several fires at once, each as {@link #claim} would, answering in the order given: a
   * store that can should do it in one transaction (rows locked in key order, so two batches and a
   * lease renewal never wait on each other in a cycle). Every answer stands alone: one lost claim
   * does not fail the others. A store may answer "not claimed" at once for a fire whose row another
   * transaction holds, rather than hold up the whole batch until that transaction ends (the JDBC
   * store skips such rows): the engine claims a fire lost in a batch, and still due as it was read,
   * again alone, and {@link #claim} must wait for the outcome. The default claims them one by one.
   *
   * @param expected the records the fires were read from, of distinct jobs
   * @param instance the claiming instance
   * @param lease how long each claim holds without renewal, by the store's clock
   * @return for each record, its claimed record or empty if that claim lost
   */
  default List<Optional<Claimed>> claimAll(
      List<JobRecord> expected, String instance, Duration lease) {
    List<Optional<Claimed>> out = new java.util.ArrayList<>(expected.size());
    for (JobRecord r : expected) {
      out.add(claim(r, instance, lease));
    }
    return out;
  }

  /**
   * Claims as {@link #claim} does, and only if fewer than {@code limit.permits()} other jobs whose
   * handler is in {@code limit.handlers()} hold a live lease (by the store's clock; the claimed
   * job's own row is not counted), backfill slots of those jobs that are {@link
   * BackfillSlot.State#RUNNING RUNNING} counted too. Claims of one limit must be judged one at a
   * time, by every instance, so that two cannot both take the last permit (the JDBC store locks the
   * limit's row in {@code <prefix>limits} in the claim's transaction). A claim refused by the limit
   * changes nothing; the engine leaves the fire queued and claims it again later.
   *
   * <p>The default ignores the limit and claims as {@link #claim}: a store that does not override
   * it enforces limits on each instance only (at most {@code permits} runs per instance, not in
   * all).
   *
   * @param expected the record the fire was read from
   * @param instance the claiming instance
   * @param lease how long the claim holds without renewal, by the store's clock
   * @param limit the concurrency limit of the job's handler
   * @return the claim's answer: won, lost, or refused because the limit is full
   */
  default LimitedClaim claimWithin(
      JobRecord expected, String instance, Duration lease, dev.kairos.ConcurrencyLimit limit) {
    return new LimitedClaim(claim(expected, instance, lease), false);
  }

  /**
   * Claims a backfill slot as {@link #claimBackfill} does, and only if fewer than {@code
   * limit.permits()} runs of the limit's handlers are live in the cluster: jobs of those handlers
   * holding a live lease (as {@link #claimWithin} counts them) and their backfill slots that are
   * {@link BackfillSlot.State#RUNNING RUNNING}. Judged one claim at a time per limit, as {@link
   * #claimWithin} is, which counts RUNNING slots in the same way. A RUNNING slot whose instance
   * died counts until it is given back ({@link #releaseBackfill}): for a while after a crash the
   * limit may admit fewer runs, never more.
   *
   * <p>The default ignores the limit and claims as {@link #claimBackfill}: the engine then enforces
   * the limit on each instance only.
   *
   * @param key the job's key
   * @param fireTime the slot
   * @param instance the claiming instance
   * @param limit the concurrency limit of the job's handler
   * @return the answer: claimed, not claimable (gone or not pending), or refused by the full limit
   */
  default BackfillClaim claimBackfillWithin(
      String key, Instant fireTime, String instance, dev.kairos.ConcurrencyLimit limit) {
    return claimBackfill(key, fireTime, instance) ? BackfillClaim.CLAIMED : BackfillClaim.LOST;
  }

  /** The answer to {@link #claimBackfillWithin}. */
  enum BackfillClaim {
    /** The slot is now RUNNING, owned by the claiming instance. */
    CLAIMED,
    /** The slot is gone or not PENDING; nothing was changed. */
    LOST,
    /** The concurrency limit is full in the cluster; nothing was changed. */
    LIMIT_FULL
  }

  /**
   * Extends the leases of claims this instance won and still runs: a lease is extended only if the
   * row's claim is {@code instance}'s on exactly the claimed fire given for its key, so an instance
   * restarted with the same id never renews a claim its dead predecessor left behind. Rows are
   * locked one at a time, in key order, so renewal cannot deadlock with a write-back.
   *
   * @param instance the instance that holds the claims
   * @param claimedFires the scheduled fire each running claim was won on, by job key
   * @param lease how long each renewed claim holds from now, by the store's clock
   * @return how many leases were extended
   */
  int renewClaims(String instance, Map<String, Instant> claimedFires, Duration lease);

  /**
   * Ends a claim whose fire was not run: the engine gave it up because a change (pause, reschedule,
   * trigger) reached the job between the claim and the start of the run. Clears the claim if it is
   * still {@code instance}'s on {@code claimedFire}, turning RUNNING back to SCHEDULED; the version
   * is kept, so the change's record stays current.
   *
   * @param key the job
   * @param instance the instance that holds the claim
   * @param claimedFire the scheduled fire the claim was won on
   * @return true if the claim was released
   */
  boolean release(String key, String instance, Instant claimedFire);

  /**
   * Jobs whose claim's lease has expired (their instance died mid-run), at most {@code limit}:
   * RUNNING jobs without a live lease, and jobs with a due time that were changed during the dead
   * instance's run (so no longer RUNNING) but still carry its expired lease.
   *
   * @param limit the most jobs returned
   * @return the jobs with expired claims
   */
  List<JobRecord> expiredClaims(int limit);

  /**
   * Jobs that nobody holds (not RUNNING, no claim) whose due time passed more than {@code by} ago
   * by the store's clock, in (due time, key) order strictly after {@code after} (null: from the
   * earliest), at most {@code limit}: fires that every instance should have seen and one should
   * have claimed. The engine reads them page by page, now and then, as a safety net under {@link
   * #changesSince}: a change the feed never delivers (a store whose transaction commits long after
   * it stamped its change) would otherwise leave its job unqueued everywhere. It continues from the
   * page's {@link Overdue#next()}, so overdue jobs it must leave alone (a backlog, jobs whose
   * handler runs on other instances, rows it cannot read) never hide the ones after them.
   *
   * <p>The default returns none: a store whose feed cannot lose a change needs no sweep, and one
   * written before this method existed keeps working without it. Both stores of this project
   * override it.
   *
   * @param by how long past its due time a job must be
   * @param after where the previous page ended ({@link Overdue#next()}), or null
   * @param limit the most rows read
   * @return the overdue jobs, as they are now, and where the next page starts
   */
  default Overdue overdueJobs(java.time.Duration by, WindowCursor after, int limit) {
    return new Overdue(List.of(), null);
  }

  /**
   * A page of {@link #overdueJobs}.
   *
   * @param jobs the overdue jobs read, as they are now (a row the store cannot read is logged and
   *     left out, but counts toward the page's limit)
   * @param next the position of the page's last row if the page was full (more may follow: pass it
   *     as the next call's {@code after}); null if the page reached the end
   */
  record Overdue(List<JobRecord> jobs, WindowCursor next) {
    /** Copies {@code jobs}. */
    public Overdue {
      jobs = List.copyOf(jobs);
    }
  }

  /**
   * Changes of jobs made after {@code cursor} (by any instance), in order, at most {@code limit}.
   * Start with {@link #changeCursor()}. A read that continues from the cursor the previous read of
   * this store object returned may leave out changes that read returned (a database store looks at
   * its recent changes again on every read, and returns each once); a read from any other cursor
   * returns every change after it, so a caller that could not apply a page reads again from an
   * earlier cursor.
   *
   * @param cursor the position to read after
   * @param limit the most changes returned
   * @return the changes and the cursor to read after next
   */
  Changes changesSince(long cursor, int limit);

  /**
   * The current end of the change feed: changes made later have a higher cursor.
   *
   * @return the cursor of the newest change
   */
  long changeCursor();

  /**
   * Blocks up to {@code max} (real time) for a change made through this store, by any instance (for
   * example PostgreSQL {@code LISTEN/NOTIFY}); a store without notifications simply waits. Returns
   * true if notified; the caller reads {@link #changesSince} either way.
   *
   * @param max the longest wait
   * @return true if a change was notified, false on timeout
   * @throws InterruptedException if interrupted while waiting
   */
  boolean awaitChange(Duration max) throws InterruptedException;

  /**
   * Ids of the instances whose last heartbeat (store clock) is within {@code within}, sorted. The
   * engine shares due fires among them by key, so that normally one instance claims each fire and
   * the others do not race for it. The default, no list, turns sharing off: every instance tries
   * every fire and the claim decides.
   *
   * @param within how recent a heartbeat must be to count as live
   * @return the live instance ids, sorted; empty to turn sharing off
   */
  default List<String> liveInstances(Duration within) {
    return List.of();
  }

  /**
   * Every registered instance with its last heartbeat (store clock), live or not, by id: for
   * administration tools. The default, none, suits a store that does not keep them.
   *
   * @return the last heartbeat of each registered instance, by instance id
   */
  default Map<String, Instant> instances() {
    return Map.of();
  }

  /**
   * The store's clock, which judges leases and liveness.
   *
   * @return the current time by the store's clock
   */
  Instant storeNow();

  /**
   * A won claim.
   *
   * @param record the job as claimed (state RUNNING, new version)
   * @param recovery true if it took over a fire whose previous claim's lease had expired
   */
  record Claimed(JobRecord record, boolean recovery) {}

  /**
   * The answer to {@link #claimWithin}.
   *
   * @param claimed the won claim, or empty if the claim lost or was refused
   * @param limitFull true if refused because the concurrency limit was full (then {@code claimed}
   *     is empty and nothing was changed)
   */
  record LimitedClaim(Optional<Claimed> claimed, boolean limitFull) {
    /**
     * Checks that a refusal carries no claim.
     *
     * @param claimed the won claim, or empty if the claim lost or was refused
     * @param limitFull true if refused because the concurrency limit was full (then {@code claimed}
     *     is empty and nothing was changed)
     * @throws IllegalArgumentException if {@code limitFull} and {@code claimed} is present
     */
    public LimitedClaim {
      java.util.Objects.requireNonNull(claimed, "claimed");
      if (limitFull && claimed.isPresent()) {
        throw new IllegalArgumentException("a claim refused by its limit carries no claim");
      }
    }

    /**
     * A claim refused because the limit is full.
     *
     * @return the refusal
     */
    public static LimitedClaim full() {
      return new LimitedClaim(Optional.empty(), true);
    }
  }

  /**
   * A slice of the change feed.
   *
   * @param changed jobs created or changed, as they are now
   * @param deleted keys of jobs deleted
   * @param cursor the cursor to continue from
   */
  record Changes(List<JobRecord> changed, List<String> deleted, long cursor) {}
}
