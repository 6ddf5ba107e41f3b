package dev.kairos.engine.internal;

import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.WindowCursor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode's background thread: heartbeats, renews the leases of the fires running here,
 * recovers fires whose instance died (expired leases), and applies the change feed so that a change
 * made through any instance reaches this heap within one poll interval (at once where the store
 * notifies). It never fires anything: workers do, after claiming.
 */
final class ClusterSync implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ClusterSync.class);
  private static final int BATCH = 1000;

  /**
   * How long past its due time an unclaimed job must be before the overdue sweep ({@link #recover})
   * queues it from its row: far longer than a change takes through the feed (one poll), so in a
   * healthy cluster the sweep finds only fires still queued somewhere (a backlog), which it leaves
   * as they are.
   */
  static final Duration OVERDUE = Duration.ofSeconds(5);

  /** Full batches read without the cursor moving before waiting for the next change. */
  private static final int PAGES_IN_PLACE = 10;

  private final ClusterStore store;

  /** Where the last overdue sweep's page ended; null: the next starts from the earliest. */
  private WindowCursor sweptTo;

  private final Dispatcher dispatcher;
  private final Lock changes;
  private final EngineConfig config;
  private final StoreHealth health;

  /**
   * Whether a row may be queued here, as a window load judges it (readable, its handler registered
   * here): the overdue sweep queues no other.
   */
  private final java.util.function.Predicate<JobRecord> queueable;

  /** Told of each job the overdue sweep queued ({@code changeMissed}). */
  private final dev.kairos.SchedulerListener listeners;

  private volatile boolean stopped;
  private long cursor;

  /** Live instances the store listed at the last heartbeat; 0 before the first. */
  private volatile int liveInstances;

  /**
   * System.nanoTime() of this instance's last successful heartbeat (or registration, which the
   * scheduler makes just before constructing this).
   */
  private volatile long lastHeartbeat = System.nanoTime();

  ClusterSync(
      ClusterStore store,
      Dispatcher dispatcher,
      Lock changes,
      EngineConfig config,
      StoreHealth health,
      java.util.function.Predicate<JobRecord> queueable,
      dev.kairos.SchedulerListener listeners) {
    this.queueable = queueable;
    this.listeners = listeners;
    this.store = store;
    this.dispatcher = dispatcher;
    this.changes = changes;
    this.config = config;
    this.health = health;
    this.cursor = store.changeCursor();
  }

  /** Asks the thread to stop; it deregisters the instance on its way out. */
  void stop() {
    stopped = true;
  }

  @Override
  public void run() {
    // Leases are renewed every lease/3 (two renewals may fail before a claim lapses); expired
    // claims are looked for twice as often, so that a dead instance's fire is recovered within
    // lease/6 of its lease ending and failover stays under lease + lease/3 with room to spare.
    //
    // After a store outage, recovery waits lease/3 past the last failed call. An outage as long
    // as the lease lets every claim lapse, the live owners' too: they could not renew. Their
    // renewal is retried every lease/6 at most (and first thing after the outage), so within
    // that grace every live owner has renewed, and the scan that follows finds only the claims
    // of instances that are really gone. Without it, whichever instance reached the store first
    // would take over a fire that is still running elsewhere.
    Duration renewEvery = config.cluster().lease().dividedBy(3);
    Duration recoverEvery = config.cluster().lease().dividedBy(6);
    Duration poll = config.cluster().poll();
    Duration retryEvery = poll.compareTo(recoverEvery) < 0 ? poll : recoverEvery;
    long nextRenew = 0;
    long nextRecover = 0;
    while (!stopped) {
      try {
        long now = System.nanoTime();
        if (now - nextRenew >= 0) {
          renew();
          nextRenew = now + renewEvery.toNanos();
        }
        if (now - nextRecover >= 0) {
          recover();
          nextRecover = now + recoverEvery.toNanos();
        }
        applyChanges();
        health.ok();
        long untilNext = Math.max(0, Math.min(nextRenew, nextRecover) - System.nanoTime());
        store.awaitChange(poll.toNanos() <= untilNext ? poll : Duration.ofNanos(untilNext));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        health.failed("syncing with the cluster", e);
        long now = System.nanoTime();
        nextRenew = now; // renew first thing once the store answers
        nextRecover = Math.max(nextRecover - now, renewEvery.toNanos()) + now;
        if (!health.pause(retryEvery)) {
          break;
        }
      }
    }
    try {
      store.deregister(config.instanceId());
    } catch (RuntimeException e) {
      log.debug("deregistering instance {} failed", config.instanceId(), e);
    }
  }

  private void renew() {
    store.heartbeat(config.instanceId());
    lastHeartbeat = System.nanoTime();
    List<String> live = store.liveInstances(config.cluster().lease());
    liveInstances = live.size();
    dispatcher.share(ClusterShare.of(config.instanceId(), live));
    Map<String, Instant> held = dispatcher.heldClaims();
    if (!held.isEmpty()) {
      store.renewClaims(config.instanceId(), held, config.cluster().lease());
    }
  }

  /**
   * Recovers the fires of expired claims; then sweeps for overdue jobs nobody holds and applies
   * them as changes. The sweep is the safety net under the change feed: a change the feed never
   * delivers (on the JDBC store, one whose transaction committed more than the feed's settle time
   * after it stamped its row, so that readers had moved their cursors past it) would otherwise
   * leave its job queued nowhere. A row the heap already holds at its version is left alone (a
   * backlog, a fire held back by a concurrency limit or the cluster share), so is one beyond a
   * truncated window (a later load reads it), and one a window load would not queue here (refused,
   * or its handler not registered here) is skipped; the others are applied as changes. The sweep
   * cannot run a fire twice: claims decide who runs it. A lost change that made a job due later in
   * the future is caught once the job is {@link #OVERDUE}. Each sweep reads one page of {@value
   * #BATCH} rows, continuing from where the last one ended ({@link #sweptTo}), so more than a page
   * of overdue jobs the sweep must leave alone cannot hide those after them.
   */
  private void recover() {
    for (JobRecord r : store.expiredClaims(BATCH)) {
      log.info(
          "job '{}': the lease of its claim (state {}, due {}) expired; recovering it",
          r.key(),
          r.state(),
          r.dueTime());
      dispatcher.recover(r);
    }
    ClusterStore.Overdue page = store.overdueJobs(OVERDUE, sweptTo, BATCH);
    sweptTo = page.next(); // null: the next sweep starts from the earliest again
    List<JobRecord> overdue = page.jobs();
    if (overdue.isEmpty()) {
      return;
    }
    List<JobRecord> missed = new java.util.ArrayList<>();
    changes.lock();
    try {
      for (JobRecord r : overdue) {
        if (dispatcher.missing(r) && queueable.test(r)) {
          log.info(
              "job '{}': due {} and held by no instance, but not queued here; queueing it from"
                  + " its row (the change feed did not deliver its last change)",
              r.key(),
              r.dueTime());
          dispatcher.changedElsewhere(r.key(), r);
          missed.add(r);
        }
      }
    } finally {
      changes.unlock();
    }
    for (JobRecord r : missed) { // listeners outside the lock: they are the application's code
      listeners.changeMissed(r.key(), r.dueTime());
    }
  }

  /** Live instances the store listed at the last heartbeat, this one included; 0 before it. */
  int liveInstances() {
    return liveInstances;
  }

  /** Whether this instance's last successful heartbeat is younger than the lease. */
  boolean alive() {
    return System.nanoTime() - lastHeartbeat < config.cluster().lease().toNanos();
  }

  /**
   * Reads the change feed and applies it to the heap, serialized with local changes and loads.
   * Deletions first: a key deleted and created again after the cursor ends up as the store has it.
   * Stops at the end of the feed, or after {@value #PAGES_IN_PLACE} full batches that left the
   * cursor where it was (a store holds its cursor back while recent changes settle; the JDBC store
   * then returns the next changes it has not returned, another store may return the same ones).
   */
  void applyChanges() {
    for (int inPlace = 0; ; ) {
      changes.lock();
      ClusterStore.Changes batch;
      long before = cursor;
      try {
        batch = store.changesSince(cursor, BATCH);
        boolean applied = false;
        try {
          for (String key : batch.deleted()) {
            dispatcher.changedElsewhere(key, null);
          }
          for (JobRecord r : batch.changed()) {
            dispatcher.changedElsewhere(r.key(), r);
          }
          applied = true;
        } finally {
          // a store may not return a page again from the cursor it handed out: go back one
          cursor = applied ? batch.cursor() : cursor - 1;
        }
      } finally {
        changes.unlock();
      }
      inPlace += cursor == before ? 1 : 0;
      if (batch.changed().size() + batch.deleted().size() < BATCH || inPlace == PAGES_IN_PLACE) {
        return;
      }
    }
  }
}
