package dev.kairos.engine.internal;

import dev.kairos.JobContext;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Scheduler;
import dev.kairos.StoreException;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Several threads call {@code schedule}, {@code pause}, {@code resume}, {@code triggerNow} and
 * {@code unschedule} on a few keys while the scheduler fires them every few milliseconds on real
 * worker threads (issue #10, findings 1 and 2). An independent ledger kept by the handler counts
 * what must never happen while no process dies: a fire (job, scheduled time) run twice, a run that
 * started after {@code pause()} returned, before anything re-armed the job, and a stored job not
 * paused while the ledger holds it paused (what a restart would fire).
 *
 * <p>Run by {@code ApiRaceStressTest} on the in-memory store and by the JDBC module's tests on H2
 * and PostgreSQL. With {@code callerTransactions}, each call is made in a transaction of the
 * caller's as the engine sees one ({@link dev.kairos.engine.CallerTransactions}): the heap learns
 * of the change only when the transaction ends, up to 3 ms later, and the job is held meanwhile
 * ({@link Dispatcher#holdForCaller}); a pause then counts from its commit only (a run may begin
 * while the transaction is open: the pause is not committed yet), and at the end every job must
 * fire again (a hold never released, or a fire left set aside, would keep it from firing).
 */
public final class ApiRaceStress {
  /**
   * What the ledger found.
   *
   * @param runs runs recorded
   * @param duplicates runs of a fire that had run already
   * @param runsAfterPause runs that started after a {@code pause()} of their job had returned
   * @param calls API calls made
   * @param pausesLost looks at the store that found a job the ledger holds paused in another state
   * @param failedCalls API calls that threw a {@link StoreException} (a store whose connections are
   *     cut), after which the ledger no longer judges the job until it is paused again
   * @param examples up to 10 offending runs or looks, described
   * @param silent with caller transactions: jobs that did not fire again within 10 s after the
   *     calls ended (resumed first); else empty
   */
  public record Report(
      int runs,
      int duplicates,
      int runsAfterPause,
      int calls,
      int pausesLost,
      int failedCalls,
      List<String> examples,
      List<String> silent) {}

  private static final Duration PERIOD = Duration.ofMillis(20);
  static String OPS = System.getProperty("ops", "012345");

  private final Map<String, JobContext> ran = new ConcurrentHashMap<>();

  /** When pause() of the key returned, while nothing has re-armed the job since. */
  private final Map<String, Instant> pausedSince = new ConcurrentHashMap<>();

  private final AtomicInteger runs = new AtomicInteger();
  private final AtomicInteger duplicates = new AtomicInteger();
  private final AtomicInteger afterPause = new AtomicInteger();
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger pausesLost = new AtomicInteger();
  private final AtomicInteger failedCalls = new AtomicInteger();
  private final List<String> examples = new CopyOnWriteArrayList<>();

  /** Changes made in the calling thread's open transaction, re-read when it ends. */
  private final ThreadLocal<List<Runnable>> transaction = new ThreadLocal<>();

  private final boolean callerTransactions;

  private ApiRaceStress(boolean callerTransactions) {
    this.callerTransactions = callerTransactions;
  }

  /**
   * Hammers a scheduler over {@code store} (opened by the scheduler, closed at the end).
   *
   * @param keys how many jobs
   * @param threads how many API-calling threads
   * @param length how long to hammer
   * @param seed the random seed (printed by failing tests)
   */
  public static Report run(JobStore store, int keys, int threads, Duration length, long seed)
      throws InterruptedException {
    return run(store, keys, threads, length, seed, false, OPS);
  }

  /**
   * As {@link #run(JobStore, int, int, Duration, long)}, each call in a caller's transaction if
   * {@code callerTransactions} (see the class comment), with the calls {@code ops} lists (digits of
   * {@link #call}'s cases).
   */
  public static Report run(
      JobStore store,
      int keys,
      int threads,
      Duration length,
      long seed,
      boolean callerTransactions,
      String ops)
      throws InterruptedException {
    ApiRaceStress stress = new ApiRaceStress(callerTransactions);
    stress.ops = ops;
    return stress.hammer(store, keys, threads, length, seed);
  }

  /** The calls made: digits of {@link #call}'s cases. */
  private String ops = OPS;

  private Report hammer(JobStore store, int keys, int threads, Duration length, long seed)
      throws InterruptedException {
    Scheduler scheduler =
        Kairos.builder()
            .store(store)
            .workers(4)
            .gracePeriod(Duration.ofSeconds(10))
            .handler("h", this::record)
            .callerTransactions(
                new dev.kairos.engine.CallerTransactions() {
                  @Override
                  public boolean afterCompletion(Runnable reread) {
                    List<Runnable> open = transaction.get();
                    if (open == null) {
                      return false;
                    }
                    open.add(reread);
                    return true;
                  }

                  @Override
                  public boolean mayJoin() { // the changes hold their keys before writing
                    return transaction.get() != null;
                  }
                })
            .build();
    List<String> silent = new ArrayList<>();
    try {
      scheduler.start();
      for (int k = 0; k < keys; k++) {
        scheduleRetrying(scheduler, spec("k" + k));
      }
      long end = System.nanoTime() + length.toNanos();
      List<Thread> hammers = new ArrayList<>();
      Object[] locks = new Object[keys];
      for (int k = 0; k < keys; k++) {
        locks[k] = new Object();
      }
      for (int t = 0; t < threads; t++) {
        SplittableRandom random = new SplittableRandom(seed + t);
        Thread th =
            new Thread(
                () -> {
                  while (System.nanoTime() < end) {
                    int k = random.nextInt(keys);
                    synchronized (locks[k]) { // the ledger's view of one key stays in step
                      try {
                        int op = ops.charAt(random.nextInt(ops.length())) - '0';
                        if (callerTransactions) {
                          inTransaction(scheduler, "k" + k, op, random.nextInt(4));
                        } else {
                          call(scheduler, "k" + k, op);
                        }
                      } catch (StoreException e) {
                        // Its outcome is unknown (a connection cut after the commit): the job
                        // may or may not be paused now, so the ledger stops judging it.
                        pausedSince.remove("k" + k);
                        failedCalls.incrementAndGet();
                      }
                    }
                    calls.incrementAndGet();
                  }
                },
                "api-race-" + t);
        hammers.add(th);
        th.start();
      }
      for (Thread th : hammers) {
        th.join();
      }
      if (callerTransactions) { // a hold left behind would keep a job from firing
        silent.addAll(silentAfterwards(scheduler, keys));
      }
    } finally {
      scheduler.close();
    }
    return new Report(
        runs.get(),
        duplicates.get(),
        afterPause.get(),
        calls.get(),
        pausesLost.get(),
        failedCalls.get(),
        List.copyOf(examples),
        List.copyOf(silent));
  }

  /**
   * One call in a transaction of the caller's, held open {@code millis} ms after it; a pause counts
   * for the ledger from the transaction's end, when the heap learns of it.
   */
  private void inTransaction(Scheduler scheduler, String key, int op, int millis) {
    transaction.set(new ArrayList<>());
    List<Runnable> rereads;
    boolean paused = false;
    try {
      paused = call(scheduler, key, op);
      if (millis > 0) {
        java.util.concurrent.locks.LockSupport.parkNanos(millis * 1_000_000L);
      }
    } finally {
      rereads = transaction.get();
      transaction.remove();
      rereads.forEach(Runnable::run); // "commit"
      if (paused) {
        pausedSince.putIfAbsent(key, Instant.now());
      }
    }
  }

  /** Resumes every job and returns those that do not run again within 10 s. */
  private List<String> silentAfterwards(Scheduler scheduler, int keys) {
    Map<String, Integer> before = new java.util.HashMap<>();
    for (int k = 0; k < keys; k++) {
      String key = "k" + k;
      pausedSince.remove(key);
      scheduler.resume(key);
      before.put(key, runsOf(key));
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    List<String> silent = new ArrayList<>(before.keySet());
    while (!silent.isEmpty() && System.nanoTime() < deadline) {
      silent.removeIf(key -> runsOf(key) > before.get(key));
      java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
    }
    return silent;
  }

  private final Map<String, AtomicInteger> runsByKey = new ConcurrentHashMap<>();

  private int runsOf(String key) {
    AtomicInteger n = runsByKey.get(key);
    return n == null ? 0 : n.get();
  }

  /** Schedules the job, again while the store fails (its connections cut by a test). */
  private static void scheduleRetrying(Scheduler scheduler, JobSpec spec) {
    for (int attempt = 1; ; attempt++) {
      try {
        scheduler.schedule(spec);
        return;
      } catch (StoreException e) {
        if (attempt == 100) {
          throw e;
        }
      }
    }
  }

  /**
   * Asserts that the ledger found nothing that must never happen: no fire run twice, no run after a
   * pause, no paused job found unpaused in the store.
   *
   * @param r the report
   * @param seed the seed, named in the failure
   */
  public static void assertClean(Report r, long seed) {
    org.assertj.core.api.Assertions.assertThat(r.duplicates())
        .as("fires run twice (seed %d): %s", seed, r.examples())
        .isZero();
    org.assertj.core.api.Assertions.assertThat(r.runsAfterPause())
        .as("runs after pause (seed %d): %s", seed, r.examples())
        .isZero();
    org.assertj.core.api.Assertions.assertThat(r.pausesLost())
        .as("paused jobs found unpaused in the store (seed %d): %s", seed, r.examples())
        .isZero();
  }

  /**
   * The checks of a run with every call in a caller's transaction: more than {@code minRuns} runs,
   * {@link #assertClean}, and every job fired again after the calls stopped (no hold left behind,
   * no fire left set aside).
   */
  public static void assertCleanInTransactions(Report r, long seed, int minRuns) {
    org.assertj.core.api.Assertions.assertThat(r.runs())
        .as("runs (seed %d)", seed)
        .isGreaterThan(minRuns);
    assertClean(r, seed);
    org.assertj.core.api.Assertions.assertThat(r.silent())
        .as("jobs that never fired again (seed %d)", seed)
        .isEmpty();
  }

  private static JobSpec spec(String key) {
    return JobSpec.named(key).handler("h").fixedRate(PERIOD);
  }

  /**
   * Makes call {@code op} on the key; returns true if it was a pause that returned true made in a
   * caller's open transaction, which the ledger counts from the transaction's end (a run may begin
   * while it is open, before the pause is committed).
   */
  private boolean call(Scheduler scheduler, String key, int op) {
    switch (op) {
      case 0 -> {
        if (scheduler.pause(key)) {
          if (transaction.get() != null) {
            return true;
          }
          pausedSince.putIfAbsent(key, Instant.now());
        }
      }
      case 1 -> {
        pausedSince.remove(key);
        scheduler.resume(key);
      }
      case 2 -> {
        pausedSince.remove(key); // a paused job may be triggered once
        scheduler.triggerNow(key);
      }
      case 3 -> scheduler.schedule(spec(key)); // unchanged: keeps a paused job paused
      case 4 -> {
        pausedSince.remove(key);
        scheduler.unschedule(key);
        scheduler.schedule(spec(key));
      }
      case 5 -> checkStored(scheduler, key);
      default -> Thread.onSpinWait();
    }
    return false;
  }

  /**
   * A job the ledger holds paused must be paused in the store too, whatever runs and write-backs
   * happened since: a restart fires what the store says (the short H2 soak once found a job running
   * after a restart although its pause had returned).
   */
  private void checkStored(Scheduler scheduler, String key) {
    Instant paused = pausedSince.get(key);
    if (paused == null) {
      return;
    }
    JobState stored = scheduler.job(key).map(JobInfo::state).orElse(null);
    if (stored != JobState.PAUSED) {
      pausesLost.incrementAndGet();
      example(key + " is " + stored + " in the store; pause() returned at " + paused);
    }
  }

  private void record(JobContext ctx) throws InterruptedException {
    runs.incrementAndGet();
    runsByKey.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
    JobContext before = ran.putIfAbsent(ctx.key() + "@" + ctx.scheduledFireTime(), ctx);
    if (before != null) {
      duplicates.incrementAndGet();
      example(
          "fire "
              + ctx.scheduledFireTime()
              + " of "
              + ctx.key()
              + " ran again: first started "
              + before.actualStart()
              + " (attempt "
              + before.attempt()
              + ", missed "
              + before.missedFires()
              + "), again "
              + ctx.actualStart()
              + " (attempt "
              + ctx.attempt()
              + ", missed "
              + ctx.missedFires()
              + ")");
    }
    Instant paused = pausedSince.get(ctx.key());
    if (paused != null && ctx.actualStart().isAfter(paused)) {
      afterPause.incrementAndGet();
      example(
          ctx.key()
              + " started at "
              + ctx.actualStart()
              + " (fire "
              + ctx.scheduledFireTime()
              + ", attempt "
              + ctx.attempt()
              + "), after pause() returned at "
              + paused);
    }
    Thread.sleep(ctx.scheduledFireTime().getNano() % 3); // 0–2 ms: runs overlap the calls
  }

  private void example(String s) {
    if (examples.size() < 10) {
      examples.add(s);
    }
  }
}
