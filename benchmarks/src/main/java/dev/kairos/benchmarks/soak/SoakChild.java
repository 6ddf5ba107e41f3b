package dev.kairos.benchmarks.soak;

import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.Scheduler;
import dev.kairos.benchmarks.soak.Ledger.Op;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.jdbc.JdbcStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One soak instance (a child JVM): a real scheduler over the run's store whose handler appends
 * every run to this instance's ledger file before doing its work, and API threads that call
 * schedule, pause, resume, triggerNow and unschedule on the race jobs at random, each call written
 * to the ledger with the real time it began and returned. Runs until SIGTERM (graceful close) or
 * SIGKILL.
 *
 * <p>Arguments: the {@link SoakOptions}, then {@code --instance NAME --url URL --first MICROS}.
 */
final class SoakChild {
  private final SoakOptions o;
  private final String instance;
  private final LedgerFile ledger;
  private final SoakJobs jobs;
  private volatile boolean stopping;

  private SoakChild(SoakOptions o, String instance, SoakJobs jobs) {
    this.o = o;
    this.instance = instance;
    this.jobs = jobs;
    this.ledger = new LedgerFile(o.dir().resolve("run-" + instance + ".ledger"));
  }

  static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(List.of(args));
    String instance = take(rest, "--instance");
    String url = take(rest, "--url");
    long first = Long.parseLong(take(rest, "--first"));
    SoakOptions o = SoakOptions.parse(rest);
    SoakJobs jobs =
        new SoakJobs(
            o.period(), Instant.EPOCH.plusNanos(first * 1_000), o.steadyJobs(), o.raceKeys());
    new SoakChild(o, instance, jobs).run(url);
  }

  private static String take(List<String> args, String key) {
    int i = args.indexOf(key);
    if (i < 0 || i + 1 >= args.size()) {
      throw new IllegalArgumentException("missing " + key);
    }
    String v = args.get(i + 1);
    args.subList(i, i + 2).clear();
    return v;
  }

  /** Child s1 runs with the skewed clock, in every generation. */
  private boolean skewed() {
    return o.clustered() && !o.skew().isZero() && Ledger.slotOf(instance).equals("s1");
  }

  private void run(String url) throws InterruptedException {
    Scheduler scheduler = scheduler(url);
    scheduler.start();
    for (Ledger.Job j : jobs.all()) {
      if (j.steady()) {
        scheduler.schedule(jobs.spec(j)); // an upsert: the stored state is kept
      }
    }
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < o.apiThreads(); i++) {
      int n = i;
      Thread t = new Thread(() -> hammer(scheduler, n), "api-" + i);
      t.start();
      threads.add(t);
    }
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stopping = true;
                  threads.forEach(SoakChild::joinQuietly);
                  scheduler.close();
                  ledger.close();
                  closed.countDown();
                }));
    closed.await();
  }

  /**
   * A scheduler as every soak instance builds it: over the run's store ({@code url} is the H2
   * directory or the PostgreSQL or MariaDB URL), clustered when several instances run, with a 5 s
   * grace period and the soak's one handler.
   */
  static Scheduler scheduler(
      SoakOptions o, String url, String instanceId, Duration skew, Job handler) {
    JdbcStore store =
        o.store().equals("h2")
            ? JdbcStore.h2(Path.of(url))
            : JdbcStore.builder()
                .url(url)
                .user(o.store().equals("mariadb") ? o.mariadbUser() : o.pgUser())
                .poolSize(o.workers() + 4)
                .clustered(o.clustered())
                .build();
    Kairos.Builder b =
        Kairos.builder()
            .store(store)
            .workers(o.workers())
            .instanceId(instanceId)
            .gracePeriod(Duration.ofSeconds(5))
            .handler(SoakJobs.HANDLER, handler);
    if (!skew.isZero()) {
      b.clock(TimeSource.offset(skew));
    }
    if (o.clustered()) {
      b.clusterLease(o.lease());
    }
    return b.build();
  }

  private Scheduler scheduler(String url) {
    Duration skew = skewed() ? o.skew() : Duration.ZERO;
    return scheduler(o, url, Ledger.slotOf(instance), skew, this::fired);
  }

  /** The handler: first the ledger line, then the work. */
  private void fired(JobContext ctx) throws InterruptedException {
    long start = LedgerFile.nowMicros();
    ledger.append(
        "RUN",
        instance,
        ctx.key(),
        LedgerFile.micros(ctx.scheduledFireTime()),
        start,
        // In cluster mode (the only one skewed) the engine's start is its claim, by the
        // database's clock: not skewed.
        LedgerFile.micros(ctx.actualStart()),
        ctx.attempt(),
        ctx.missedFires(),
        ctx.recovery());
    Thread.sleep(SoakJobs.runTime(ctx.key()).toMillis());
  }

  private void hammer(Scheduler scheduler, int thread) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    List<Ledger.Job> race = jobs.all().stream().filter(j -> !j.steady()).toList();
    Op[] ops = Op.values();
    long n = 0;
    while (!stopping) {
      Ledger.Job job = race.get(r.nextInt(race.size()));
      Op op = ops[r.nextInt(ops.length)];
      String id = thread + "-" + n++;
      ledger.append("CALL", instance, id, job.key(), op, LedgerFile.nowMicros());
      String result;
      try {
        result = String.valueOf(call(scheduler, job, op));
      } catch (RuntimeException e) {
        if (stopping) {
          return;
        }
        result = "error";
      }
      ledger.append("DONE", instance, id, LedgerFile.nowMicros(), result);
      try {
        Thread.sleep(o.apiPause().toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private boolean call(Scheduler s, Ledger.Job job, Op op) {
    return switch (op) {
      case SCHEDULE -> s.schedule(jobs.spec(job)) != null;
      case PAUSE -> s.pause(job.key());
      case RESUME -> s.resume(job.key());
      case TRIGGER -> s.triggerNow(job.key());
      case UNSCHEDULE -> s.unschedule(job.key());
    };
  }

  private static void joinQuietly(Thread t) {
    try {
      t.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
