package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.engine.CallerTransactions;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.StartMark;
import dev.kairos.spi.Upsert;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch of write-backs formed before a change made in a caller's open transaction, and written
 * after that change locked the job's row, would wait for the transaction's end, and every run in
 * the batch (on a single writer thread, every write-back behind it) with it: seen on MariaDB as
 * three other jobs without a fire for the 2 s an application's transaction around {@code
 * unschedule()} stayed open. The change now holds its keys before it writes and waits for batches
 * already formed with them ({@link Dispatcher#changing(java.util.Collection, boolean)}). Real
 * threads over a store that batches runs and locks the rows an open "transaction" wrote, as a
 * database does; the batch with the changed job is held at the store's door until the change has
 * begun. In cluster mode the same holds for a batch of claims ({@link Dispatcher#takeDue}): a claim
 * batch formed before the change and sent after it would wait for the lock, and every fire in it.
 */
class CallerTransactionBatchesTest {
  /** The thread of the open transaction, or null. */
  private volatile Thread txThread;

  private final List<Runnable> atEnd = new CopyOnWriteArrayList<>();
  private LockingStore store = new LockingStore(false);
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private KairosScheduler scheduler;

  private final CallerTransactions transactions =
      new CallerTransactions() {
        @Override
        public boolean afterCompletion(Runnable reread) {
          if (Thread.currentThread() != txThread) {
            return false;
          }
          atEnd.add(reread);
          return true;
        }

        @Override
        public boolean mayJoin() {
          return Thread.currentThread() == txThread;
        }
      };

  @AfterEach
  void close() {
    endTransaction();
    if (scheduler != null) {
      scheduler.close();
    }
  }

  private void endTransaction() {
    txThread = null;
    store.unlockAll();
    atEnd.forEach(Runnable::run);
    atEnd.clear();
  }

  @Test
  void unscheduleInOpenTransaction_batchFormedBefore_writtenFirst_othersKeepFiring()
      throws Exception {
    changeInOpenTransaction_noBatchWaitsForItsLock(s -> s.unschedule("held"));
  }

  @Test
  void pauseInOpenTransaction_batchFormedBefore_writtenFirst_othersKeepFiring() throws Exception {
    changeInOpenTransaction_noBatchWaitsForItsLock(s -> s.pause("held"));
  }

  @Test
  void clustered_unscheduleInOpenTransaction_claimBatchFormedBefore_claimedFirst_othersKeepFiring()
      throws Exception {
    store = new LockingStore(true);
    changeInOpenTransaction_noBatchWaitsForItsLock(s -> s.unschedule("held"));
  }

  @Test
  void clustered_pauseInOpenTransaction_claimBatchFormedBefore_claimedFirst_othersKeepFiring()
      throws Exception {
    store = new LockingStore(true);
    changeInOpenTransaction_noBatchWaitsForItsLock(s -> s.pause("held"));
  }

  private void changeInOpenTransaction_noBatchWaitsForItsLock(Consumer<KairosScheduler> change)
      throws Exception {
    startScheduler();
    // One grid for both: their fires fall due together, so batches (of claims, of write-backs)
    // hold both keys.
    java.time.Instant start = java.time.Instant.now().plusMillis(100);
    scheduler.scheduleAll(
        List.of("held", "other").stream()
            .map(k -> JobSpec.named(k).handler("h").fixedRate(Duration.ofMillis(50)).startAt(start))
            .toList());
    await().atMost(Duration.ofSeconds(10)).until(() -> runs("held") >= 3 && runs("other") >= 3);

    store.holdNextBatchWith("held"); // cluster mode: a claim batch; else a write-back batch
    assertThat(store.atDoor.await(10, TimeUnit.SECONDS)).as("a batch with 'held' came").isTrue();
    CountDownLatch changed = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread tx = inOpenTransaction(() -> change.accept(scheduler), changed, release);
    // The change has begun: it waits for the batch (or, before, has written and locked the row).
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> changed.getCount() == 0 || waiting(tx) || store.locked.contains("held"));
    store.door.countDown(); // the batch goes on to the store
    assertThat(changed.await(10, TimeUnit.SECONDS)).as("the change returned").isTrue();

    int before = runs("other");
    await() // the other job keeps firing while the transaction is open
        .atMost(Duration.ofSeconds(10))
        .until(() -> runs("other") >= before + 5);
    assertThat(store.waitedForLock.get()).as("store calls that waited for the row lock").isZero();

    release.countDown();
    tx.join(10_000);
    endTransaction();
  }

  /**
   * A run's start mark written alone, by key, formed just before a change made in a caller's open
   * transaction and sent to the store after that change began: the change waits for the mark, so
   * the mark never waits for the transaction's row lock. The JDBC store writes such a mark in one
   * transaction with other jobs' write-backs (its group commit), which waited with it: seen in CI
   * as three other jobs without a fire for the 2 s a redefinition's transaction stayed open. Here
   * the mark is a triggered run's of a paused job (its row stays {@code PAUSED}, so it is marked by
   * key); a job held or being changed when its run starts is marked the same way.
   */
  @Test
  void keyBasedMarkFormedBefore_writtenFirst_neverWaitsForTheLock() throws Exception {
    startScheduler();
    scheduler.schedule(
        JobSpec.named("held")
            .handler("h")
            .fixedRate(Duration.ofHours(1))
            .startAt(java.time.Instant.now().plus(Duration.ofHours(1))));
    scheduler.schedule(JobSpec.named("other").handler("h").fixedRate(Duration.ofMillis(50)));
    scheduler.pause("held");
    await().atMost(Duration.ofSeconds(10)).until(() -> runs("other") >= 3);

    store.holdNextMarkOf("held");
    scheduler.triggerNow("held"); // a paused job's run: marked alone, by key
    assertThat(store.atDoor.await(10, TimeUnit.SECONDS)).as("the mark of 'held' came").isTrue();
    CountDownLatch changed = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread tx = inOpenTransaction(() -> scheduler.unschedule("held"), changed, release);
    // The change has begun: it waits for the mark (or, before, has written and locked the row).
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> changed.getCount() == 0 || waiting(tx) || store.locked.contains("held"));
    store.door.countDown();
    assertThat(changed.await(10, TimeUnit.SECONDS)).as("the change returned").isTrue();
    // The triggered run goes on while the transaction is open; before, its mark waited for the
    // lock.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> runs("held") == 1 || store.waitedForLock.get() > 0);
    assertThat(store.waitedForLock.get()).as("store calls that waited for the row lock").isZero();
    int before = runs("other");
    await().atMost(Duration.ofSeconds(10)).until(() -> runs("other") >= before + 5);

    release.countDown();
    tx.join(10_000);
    endTransaction();
  }

  /**
   * Every kind of call, each in a caller's transaction, from 8 threads against 20 busy jobs, over a
   * store that batches runs (so write-backs and start marks go in batches that the changes wait
   * for): no fire runs twice, none after a committed pause or unschedule, and every job fires again
   * at the end (a batch whose keys were never released would hold each change up, not stop fires; a
   * lost wake-up or a change that never ends would show as silent jobs or a hung call).
   */
  @Test
  void stress_everyCallInACallersTransaction_overABatchingStore() throws Exception {
    long seed = System.nanoTime();
    ApiRaceStress.Report r =
        ApiRaceStress.run(
            new ForwardingStore() {
              @Override
              public boolean batchesRuns() {
                return true;
              }
            },
            20,
            8,
            Duration.ofSeconds(5),
            seed,
            true,
            "012345");
    ApiRaceStress.assertCleanInTransactions(r, seed, 100);
  }

  /** Builds and starts the scheduler: two workers over {@link #store}, in caller transactions. */
  private void startScheduler() {
    scheduler =
        Engines.build(
            Kairos.builder()
                .store(store)
                .workers(2)
                .instanceId("a")
                .callerTransactions(transactions)
                .handler(
                    "h",
                    ctx ->
                        runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger())
                            .incrementAndGet()));
    scheduler.start();
  }

  /**
   * Starts the application's thread: it makes {@code change} in its open transaction (which locks
   * the rows it writes), counts {@code changed} down, and keeps the transaction open until {@code
   * release}.
   */
  private Thread inOpenTransaction(
      Runnable change, CountDownLatch changed, CountDownLatch release) {
    Thread tx =
        new Thread(
            () -> {
              txThread = Thread.currentThread();
              change.run();
              changed.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "caller-tx");
    tx.start();
    return tx;
  }

  private int runs(String key) {
    AtomicInteger n = runs.get(key);
    return n == null ? 0 : n.get();
  }

  private static boolean waiting(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  /**
   * Batches runs, and locks the rows the open transaction's thread writes until it ends: a batch,
   * mark or claim that touches a locked row waits, as on a database, and is counted. One batch with
   * a given key (of claims when clustered, else of write-backs) can be held at the door until the
   * test lets it go.
   */
  private final class LockingStore extends ForwardingClusterStore {
    final Set<String> locked = ConcurrentHashMap.newKeySet();
    final AtomicInteger waitedForLock = new AtomicInteger();
    final CountDownLatch atDoor = new CountDownLatch(1);
    final CountDownLatch door = new CountDownLatch(1);
    private volatile String holdKey;
    private volatile String holdMarkKey;

    /** Cluster mode (a shared store), or one instance. */
    LockingStore(boolean clustered) {
      super(clustered ? InMemoryStore.shared(TimeSource.system()) : new InMemoryStore());
    }

    void holdNextBatchWith(String key) {
      holdKey = key;
    }

    /** Holds the next start mark written by key ({@code runStarted}) of this job at the door. */
    void holdNextMarkOf(String key) {
      holdMarkKey = key;
    }

    synchronized void unlockAll() {
      locked.clear();
      notifyAll();
    }

    private void lockIfInTransaction(String key) {
      if (Thread.currentThread() == txThread) {
        locked.add(key);
      }
    }

    private synchronized void awaitUnlocked(List<String> keys) {
      if (Thread.currentThread() == txThread) {
        return; // the transaction's own locks
      }
      boolean counted = false;
      while (keys.stream().anyMatch(locked::contains)) {
        if (!counted) {
          waitedForLock.incrementAndGet();
          counted = true;
        }
        try {
          wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    private void atTheDoor(List<String> keys) {
      String k = holdKey;
      if (k != null && keys.contains(k)) {
        holdKey = null;
        waitAtTheDoor();
      }
    }

    private void markAtTheDoor(String key) {
      if (key.equals(holdMarkKey)) {
        holdMarkKey = null;
        waitAtTheDoor();
      }
    }

    private void waitAtTheDoor() {
      atDoor.countDown();
      try {
        door.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public boolean batchesRuns() {
      return true;
    }

    @Override
    public Upsert upsert(JobRecord fresh) {
      lockIfInTransaction(fresh.key());
      return super.upsert(fresh);
    }

    @Override
    public Optional<JobRecord> replace(JobRecord updated, long expectedVersion) {
      lockIfInTransaction(updated.key());
      return super.replace(updated, expectedVersion);
    }

    @Override
    public boolean delete(String key) {
      lockIfInTransaction(key);
      return super.delete(key);
    }

    @Override
    public void runStarted(
        String key, java.time.Instant scheduledFireTime, java.time.Instant start, String instance) {
      markAtTheDoor(key);
      awaitUnlocked(List.of(key));
      super.runStarted(key, scheduledFireTime, start, instance);
    }

    @Override
    public void runsStarted(List<StartMark> marks) {
      awaitUnlocked(marks.stream().map(StartMark::key).toList());
    }

    @Override
    public Optional<Claimed> claim(JobRecord expected, String instance, Duration lease) {
      awaitUnlocked(List.of(expected.key()));
      return super.claim(expected, instance, lease);
    }

    @Override
    public List<Optional<Claimed>> claimAll(
        List<JobRecord> expected, String instance, Duration lease) {
      List<String> keys = expected.stream().map(JobRecord::key).toList();
      if (clustered()) {
        atTheDoor(keys);
      }
      awaitUnlocked(keys);
      return super.claimAll(expected, instance, lease);
    }

    @Override
    public Optional<JobRecord> runFinished(RunResult result) {
      List<String> keys = List.of(result.key());
      if (!clustered()) {
        atTheDoor(keys);
      }
      awaitUnlocked(keys);
      return super.runFinished(result);
    }

    @Override
    public List<Optional<JobRecord>> runsFinished(List<RunResult> results) {
      List<String> keys = results.stream().map(RunResult::key).toList();
      if (!clustered()) {
        atTheDoor(keys);
      }
      awaitUnlocked(keys);
      return results.stream().map(super::runFinished).toList();
    }
  }
}
