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
 * and PostgreSQL.
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
   */
  public record Report(
      int runs,
      int duplicates,
      int runsAfterPause,
      int calls,
      int pausesLost,
      int failedCalls,
      List<String> examples) {}

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

  private ApiRaceStress() {}

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
    return new ApiRaceStress().hammer(store, keys, threads, length, seed);
  }

  private Report hammer(JobStore store, int keys, int threads, Duration length, long seed)
      throws InterruptedException {
    Scheduler scheduler =
        Kairos.builder()
            .store(store)
            .workers(4)
            .gracePeriod(Duration.ofSeconds(10))
            .handler("h", this::record)
            .build();
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
                        call(scheduler, "k" + k, OPS.charAt(random.nextInt(OPS.length())) - '0');
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
        List.copyOf(examples));
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

  private static JobSpec spec(String key) {
    return JobSpec.named(key).handler("h").fixedRate(PERIOD);
  }

  private void call(Scheduler scheduler, String key, int op) {
    switch (op) {
      case 0 -> {
        if (scheduler.pause(key)) {
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
          ctx.key() + " started at " + ctx.actualStart() + ", after pause() returned at " + paused);
    }
    Thread.sleep(ctx.scheduledFireTime().getNano() % 3); // 0–2 ms: runs overlap the calls
  }

  private void example(String s) {
    if (examples.size() < 10) {
      examples.add(s);
    }
  }
}
