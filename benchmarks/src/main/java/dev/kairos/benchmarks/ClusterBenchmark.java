package dev.kairos.benchmarks;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cluster benchmark, not run by the tests: N scheduler instances in this JVM over N stores on one
 * PostgreSQL schema (127.0.0.1:5432, database test), J jobs on a fixed rate under {@code
 * Misfire.catchUp()}, a no-op handler; prints fires per second, lateness (actual start minus
 * scheduled fire time) and how far behind the cluster is at the end, for each instance count.
 *
 * <pre>
 * mvn -q -B package -DskipTests -pl benchmarks -am
 * java -cp benchmarks/target/kairos-benchmarks.jar -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
 *     dev.kairos.benchmarks.ClusterBenchmark instances=1,2,3 jobs=100 period=PT0.25S seconds=15 \
 *     clustered=true workers=4
 * </pre>
 *
 * <p>With {@code spread=true} the jobs' first fires are spread evenly over one period (as {@code
 * lateness} does, the scenario of issue #9's lateness targets) instead of all due at the same
 * instant (a burst every period, whose lateness is mostly queueing behind the burst); with {@code
 * settle=PT2S} fires scheduled in the first two seconds (start-up, JIT) are left out of the
 * lateness figures. With {@code -Dtrace=true} each measured fire more than 20 ms late is printed
 * (its fire time and start, in ms after the first fire time, and the worker thread). CPU µs/fire is
 * this JVM's CPU time (all instances) over the measured part, per fire run in it.
 *
 * <p>With {@code oneshots=N} it measures capacity instead: N one-shots due at once, scheduled in
 * bulk before the clock reaches them, and the time until every one has run on some instance
 * (fires/s = N over that time), for each instance count; a fire run twice fails the run. With
 * {@code work=PT0.01S} each fire's handler blocks that long (as a job waiting on I/O does), so the
 * capacity is the handlers' and not the machine's CPU: how fires/s grows with instances then shows
 * whether the cluster spreads the fires over the instances' workers.
 *
 * <p>The schema is created and dropped by the run ({@code -Dkairos.pg.url=...} for another server).
 */
public final class ClusterBenchmark {
  private static final String PG_URL =
      System.getProperty("kairos.pg.url", "jdbc:postgresql://127.0.0.1:5432/test");
  private static final String PG_USER = System.getProperty("kairos.pg.user", "postgres");

  private static final boolean TRACE = Boolean.getBoolean("trace");

  private ClusterBenchmark() {}

  public static void main(String[] args) throws Exception {
    java.util.Map<String, String> a = new java.util.HashMap<>();
    for (String arg : args) {
      a.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    int jobs = Integer.parseInt(a.getOrDefault("jobs", "100"));
    Duration period = Duration.parse(a.getOrDefault("period", "PT0.25S"));
    int seconds = Integer.parseInt(a.getOrDefault("seconds", "20"));
    boolean clustered = Boolean.parseBoolean(a.getOrDefault("clustered", "true"));
    int workers = Integer.parseInt(a.getOrDefault("workers", "4"));
    int oneShots = Integer.parseInt(a.getOrDefault("oneshots", "0"));
    boolean spread = Boolean.parseBoolean(a.getOrDefault("spread", "false"));
    Duration settle = Duration.parse(a.getOrDefault("settle", "PT0S"));
    Duration work = Duration.parse(a.getOrDefault("work", "PT0S"));
    if (oneShots > 0) {
      System.out.printf(
          "%d due one-shots, %s, %d workers per instance, handler blocks %s%n",
          oneShots, clustered ? "clustered" : "not clustered", workers, work);
      System.out.println("instances  fires/s  seconds  runs per instance");
      for (String n : a.getOrDefault("instances", "1,3").split(",")) {
        capacity(Integer.parseInt(n), oneShots, clustered, workers, work);
      }
      return;
    }
    System.out.printf(
        "%d jobs every %d ms (%.0f fires/s offered, %s), %d s, %s, %d workers per instance%n",
        jobs,
        period.toMillis(),
        jobs * 1000.0 / period.toMillis(),
        spread ? "spread over the period" : "all due together",
        seconds,
        clustered ? "clustered" : "not clustered",
        workers);
    System.out.println("instances  fires/s  p50 ms  p99 ms  max ms  CPU µs/fire  behind at end");
    for (String n : a.getOrDefault("instances", "1,2,3").split(",")) {
      run(Integer.parseInt(n), jobs, period, seconds, clustered, workers, spread, settle);
    }
  }

  private static void run(
      int instances,
      int jobs,
      Duration period,
      int seconds,
      boolean clustered,
      int workers,
      boolean spread,
      Duration settle)
      throws Exception {
    String schema = "kairos_bench_" + UUID.randomUUID().toString().substring(0, 8);
    execute("CREATE SCHEMA " + schema);
    String url = PG_URL + "?currentSchema=" + schema;
    ConcurrentLinkedQueue<Long> lateness = new ConcurrentLinkedQueue<>();
    AtomicLong runs = new AtomicLong();
    List<KairosScheduler> schedulers = new ArrayList<>();
    Instant t0 = Instant.now().plusSeconds(5);
    Instant measureFrom = t0.plus(settle);
    try {
      for (int i = 0; i < instances; i++) {
        KairosScheduler s =
            instance(
                url,
                i,
                clustered,
                workers,
                ctx -> {
                  runs.incrementAndGet();
                  if (!ctx.scheduledFireTime().isBefore(measureFrom)) {
                    long l = Duration.between(ctx.scheduledFireTime(), ctx.actualStart()).toNanos();
                    lateness.add(l);
                    if (TRACE && l > 20_000_000L) {
                      System.out.printf(
                          "TRACE fire +%d ms late %.1f ms %s now +%d%n",
                          Duration.between(t0, ctx.scheduledFireTime()).toMillis(),
                          l / 1e6,
                          Thread.currentThread().getName(),
                          Duration.between(t0, Instant.now()).toMillis());
                    }
                  }
                });
        schedulers.add(s);
        s.start();
      }
      for (int j = 0; j < jobs; j++) {
        Instant first = spread ? t0.plusNanos(period.toNanos() * j / jobs) : t0;
        schedulers
            .get(j % instances)
            .schedule(
                JobSpec.named("job-" + j)
                    .handler("noop")
                    .fixedRate(period)
                    .startAt(first)
                    .misfire(Misfire.catchUp()));
      }
      Meter.sleepUntil(measureFrom);
      long cpu0 = Meter.cpuNanos();
      java.util.Map<String, Long> sync0 = cpuByThreadGroup();
      long runs0 = runs.get();
      Meter.sleepUntil(t0.plusSeconds(seconds));
      long cpu = Meter.cpuNanos() - cpu0;
      long measuredRuns = runs.get() - runs0;
      java.util.Map<String, Long> sync1 = cpuByThreadGroup();
      Instant end = Instant.now();
      long ran = runs.get();
      long offered = 0;
      for (int j = 0; j < jobs; j++) {
        long first = spread ? period.toNanos() * j / jobs : 0;
        offered += (Duration.between(t0, end).toNanos() - first) / period.toNanos() + 1;
      }
      List<Long> sorted = new ArrayList<>(lateness);
      sorted.sort(null);
      System.out.printf(
          Locale.ROOT,
          "%9d  %7.0f  %6.2f  %6.2f  %6.1f  %11.0f  %d fires (%.1f s of work)%n",
          instances,
          ran / (double) seconds,
          pct(sorted, 0.5),
          pct(sorted, 0.99),
          sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1) / 1e6,
          cpu / 1e3 / Math.max(1, measuredRuns),
          Math.max(0, offered - ran),
          Math.max(0, offered - ran) * period.toMillis() / 1000.0 / jobs);
      StringBuilder split = new StringBuilder("           CPU µs/fire by thread:");
      for (var group : sync1.entrySet()) {
        long d = group.getValue() - sync0.getOrDefault(group.getKey(), 0L);
        split.append(
            String.format(
                Locale.ROOT, " %s %.0f", group.getKey(), d / 1e3 / Math.max(1, measuredRuns)));
      }
      System.out.println(split);
    } finally {
      schedulers.forEach(KairosScheduler::close);
      execute("DROP SCHEMA " + schema + " CASCADE");
    }
  }

  private static void capacity(
      int instances, int oneShots, boolean clustered, int workers, Duration work) throws Exception {
    String schema = "kairos_bench_" + UUID.randomUUID().toString().substring(0, 8);
    execute("CREATE SCHEMA " + schema);
    String url = PG_URL + "?currentSchema=" + schema;
    java.util.Set<String> ran = java.util.concurrent.ConcurrentHashMap.newKeySet();
    AtomicLong duplicates = new AtomicLong();
    List<AtomicLong> perInstance = new ArrayList<>();
    List<KairosScheduler> schedulers = new ArrayList<>();
    try {
      for (int i = 0; i < instances; i++) {
        AtomicLong mine = new AtomicLong();
        perInstance.add(mine);
        KairosScheduler s =
            instance(
                url,
                i,
                clustered,
                workers,
                ctx -> {
                  if (!work.isZero()) {
                    Thread.sleep(work.toMillis(), work.toNanosPart() % 1_000_000);
                  }
                  mine.incrementAndGet();
                  if (!ran.add(ctx.key())) {
                    duplicates.incrementAndGet();
                  }
                });
        schedulers.add(s);
        s.start();
      }
      while (schedulers.get(0).stats().liveInstances() < instances) {
        Thread.sleep(50);
      }
      Instant due = Instant.now().plusSeconds(3);
      List<JobSpec> specs = new ArrayList<>();
      for (int j = 0; j < oneShots; j++) {
        specs.add(JobSpec.named("once-" + j).handler("noop").at(due));
      }
      schedulers.get(0).scheduleAll(specs);
      Thread.sleep(Math.max(0, Duration.between(Instant.now(), due).toMillis()));
      long begin = System.nanoTime();
      long deadline = begin + Duration.ofMinutes(5).toNanos();
      while (ran.size() < oneShots && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      double seconds = (System.nanoTime() - begin) / 1e9;
      System.out.printf(
          Locale.ROOT,
          "%9d  %7.0f  %7.2f  %s%s%n",
          instances,
          ran.size() / seconds,
          seconds,
          perInstance,
          duplicates.get() > 0 ? "  FAILED: " + duplicates.get() + " fires ran twice" : "");
    } finally {
      schedulers.forEach(KairosScheduler::close);
      execute("DROP SCHEMA " + schema + " CASCADE");
    }
  }

  /** Instance {@code i} over the schema at {@code url}, running {@code job} as handler "noop". */
  private static KairosScheduler instance(
      String url, int i, boolean clustered, int workers, dev.kairos.Job job) {
    return Engines.build(
        Kairos.builder()
            .store(
                JdbcStore.builder()
                    .url(url)
                    .user(PG_USER)
                    .poolSize(workers + 1)
                    .clustered(clustered)
                    .build())
            .instanceId("i" + i)
            .workers(workers)
            .handler("noop", job));
  }

  /**
   * CPU time of this JVM's live threads by kind: the cluster sync (change feed, leases), workers,
   * write-backs, others (JIT and GC threads are not Java threads and are left out).
   */
  private static java.util.Map<String, Long> cpuByThreadGroup() {
    var threads = java.lang.management.ManagementFactory.getThreadMXBean();
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    for (long id : threads.getAllThreadIds()) {
      var info = threads.getThreadInfo(id);
      long t = threads.getThreadCpuTime(id);
      if (info == null || t < 0) {
        continue;
      }
      String name = info.getThreadName();
      String group =
          name.startsWith("kairos-cluster")
              ? "sync"
              : name.startsWith("kairos-worker")
                  ? "workers"
                  : name.startsWith("kairos-writeback") ? "write-back" : "other";
      out.merge(group, t, Long::sum);
    }
    return out;
  }

  private static double pct(List<Long> sorted, double p) {
    return sorted.isEmpty() ? 0 : sorted.get((int) (p * (sorted.size() - 1))) / 1e6;
  }

  private static void execute(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(PG_URL, PG_USER, "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
