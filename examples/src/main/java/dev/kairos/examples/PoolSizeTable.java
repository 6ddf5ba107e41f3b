package dev.kairos.examples;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Seed 003's experiment: {@code slow} sleeps 1800 ms on a 2000 ms fixed rate, {@code fast} runs on
 * a 200 ms fixed rate, {@code throwing} throws on a 300 ms fixed rate; each configuration runs for
 * 8 s. With one worker and {@code catchUp()} the fast job's missed fires arrive in bursts; four
 * workers, or the {@code fireOnce()} and {@code skip()} policies, remove the burst.
 *
 * <p>Run: {@code mvn -B -q -pl examples -am test-compile exec:java
 * -Dmain=dev.kairos.examples.PoolSizeTable} (about 35 s; {@code -Dexec.args=--seconds=4} for a
 * shorter run).
 */
public final class PoolSizeTable {
  private PoolSizeTable() {}

  /** One configuration's figures. */
  record Row(String name, int fast, long longestGapMs, int burst, int threads, int throwing) {}

  /** Prints the table. */
  public static void main(String[] args) throws Exception {
    // throwing() fails 27 times per configuration: keep its stack traces out of the table.
    System.setProperty("org.slf4j.simpleLogger.log.dev.kairos.engine.internal.FireRunner", "off");
    Duration length = Duration.ofSeconds(8);
    for (String a : args) {
      if (a.startsWith("--seconds=")) {
        length = Duration.ofSeconds(Long.parseLong(a.substring("--seconds=".length())));
      }
    }
    List<Row> rows = new ArrayList<>();
    rows.add(run("1 worker, catchUp()", 1, Misfire.catchUp(), length));
    rows.add(run("4 workers, catchUp()", 4, Misfire.catchUp(), length));
    rows.add(run("1 worker, fireOnce()", 1, Misfire.fireOnce(), length));
    rows.add(run("1 worker, skip()", 1, Misfire.skip(), length));
    print(rows, length);
  }

  static Row run(String name, int workers, Misfire policy, Duration length)
      throws InterruptedException {
    List<Long> fastStarts = new CopyOnWriteArrayList<>();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    AtomicInteger throwing = new AtomicInteger();
    try (Scheduler s =
        Kairos.builder()
            .store(new InMemoryStore())
            .workers(workers)
            .gracePeriod(Duration.ofSeconds(5))
            .handler(
                "slow",
                ctx -> {
                  threads.add(Thread.currentThread().getName());
                  Thread.sleep(1800);
                })
            .handler(
                "fast",
                ctx -> {
                  threads.add(Thread.currentThread().getName());
                  fastStarts.add(System.nanoTime());
                })
            .handler(
                "throwing",
                ctx -> {
                  threads.add(Thread.currentThread().getName());
                  throwing.incrementAndGet();
                  throw new IllegalStateException("throwing() always throws");
                })
            .build()) {
      s.start();
      Instant t0 = Instant.now().plusMillis(100);
      s.schedule(spec("slow", Duration.ofMillis(2000), policy, t0));
      s.schedule(spec("fast", Duration.ofMillis(200), policy, t0));
      s.schedule(spec("throwing", Duration.ofMillis(300), policy, t0));
      Thread.sleep(length.plusMillis(100).toMillis()); // the experiment's length, by design
      s.pause("slow");
      s.pause("fast");
      s.pause("throwing");
    }
    long longest = 0;
    int burst = 0;
    for (int i = 1; i < fastStarts.size(); i++) {
      long gap = Duration.ofNanos(fastStarts.get(i) - fastStarts.get(i - 1)).toMillis();
      longest = Math.max(longest, gap);
      if (gap < 20) {
        burst++;
      }
    }
    return new Row(name, fastStarts.size(), longest, burst, threads.size(), throwing.get());
  }

  private static JobSpec spec(String key, Duration period, Misfire policy, Instant start) {
    return JobSpec.named(key).handler(key).fixedRate(period).startAt(start).misfire(policy);
  }

  private static void print(List<Row> rows, Duration length) {
    System.out.printf("%n%d s per configuration%n%n", length.toSeconds());
    System.out.printf("| %-44s |", "");
    rows.forEach(r -> System.out.printf(" %-21s |", r.name()));
    System.out.printf("%n|%s|", "-".repeat(46));
    rows.forEach(r -> System.out.print("-".repeat(23) + "|"));
    System.out.println();
    line("fast executions", rows, r -> "" + r.fast());
    line("longest gap between two fast executions", rows, r -> r.longestGapMs() + " ms");
    line("fast executions within 20 ms of the previous", rows, r -> "" + r.burst());
    line("distinct worker threads", rows, r -> "" + r.threads());
    line("throwing executions", rows, r -> "" + r.throwing());
  }

  private static void line(
      String label, List<Row> rows, java.util.function.Function<Row, String> f) {
    System.out.printf("| %-44s |", label);
    rows.forEach(r -> System.out.printf(" %-21s |", f.apply(r)));
    System.out.println();
  }
}
