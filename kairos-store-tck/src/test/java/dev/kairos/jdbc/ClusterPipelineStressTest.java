package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.PostgresTestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Batched claims in cluster mode under load (issue #9, item 3): three instances in one JVM, four
 * workers each, share 1,500 due one-shots and 30 jobs every 10 ms over one set of tables; a worker
 * claims up to 64 due fires of its instance's share in one transaction and hands the won ones to
 * the other workers. One instance closes half-way, releasing the claims it won but had not run. No
 * fire runs twice (on any instance), none is lost, no job overlaps itself across instances, no run
 * is a recovery (nothing crashed, so no lease may expire), and after {@code close()} no row is left
 * RUNNING and every run is written back. Real time, generous bounds.
 */
class ClusterPipelineStressTest {
  private static final int ONE_SHOTS = 1_500;
  private static final int PERIODIC = 30;
  private static final int INSTANCES = 3;

  @Test
  void h2InMemory() {
    String url = "jdbc:h2:mem:cluster-stress-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=30";
    check(() -> JdbcStore.builder().url(url).poolSize(6).clustered(true).build().jobStore());
  }

  @Test
  void postgres() {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      check(() -> db.builder().poolSize(6).clustered(true).build().jobStore());
    }
  }

  private static void check(Supplier<JobStore> stores) {
    Map<String, AtomicInteger> runsByFire = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> runsByKey = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> runsByInstance = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger recoveries = new AtomicInteger();
    List<Scheduler> schedulers = new ArrayList<>();
    for (int i = 0; i < INSTANCES; i++) {
      String id = "s" + i;
      schedulers.add(
          Kairos.builder()
              .store(stores.get())
              .instanceId(id)
              .workers(4)
              .handler(
                  "h",
                  ctx -> {
                    AtomicInteger mine =
                        inFlight.computeIfAbsent(ctx.key(), k -> new AtomicInteger());
                    if (mine.incrementAndGet() > 1) {
                      overlaps.incrementAndGet();
                    }
                    if (ctx.recovery()) {
                      recoveries.incrementAndGet();
                    }
                    runsByFire
                        .computeIfAbsent(
                            ctx.key() + "@" + ctx.scheduledFireTime(), k -> new AtomicInteger())
                        .incrementAndGet();
                    runsByKey
                        .computeIfAbsent(ctx.key(), k -> new AtomicInteger())
                        .incrementAndGet();
                    runsByInstance.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                    mine.decrementAndGet();
                  })
              .build());
    }
    Instant now = Instant.now();
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < ONE_SHOTS; i++) {
      specs.add(JobSpec.named("once-" + i).handler("h").at(now));
    }
    for (int i = 0; i < PERIODIC; i++) {
      specs.add(JobSpec.named("every-" + i).handler("h").fixedRate(Duration.ofMillis(10)));
    }
    try {
      schedulers.forEach(Scheduler::start);
      // Scheduled after every instance has started, so that they share the fires from the first.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> schedulers.stream().allMatch(s -> s.stats().liveInstances() == INSTANCES));
      // Each instance schedules a third, so that each knows a third at once and the rest through
      // the change feed.
      for (int i = 0; i < INSTANCES; i++) {
        int from = i * specs.size() / INSTANCES;
        schedulers.get(i).scheduleAll(specs.subList(from, (i + 1) * specs.size() / INSTANCES));
      }
      awaitOrExplain(
          Duration.ofSeconds(90),
          () -> oneShotsRun(runsByKey) >= ONE_SHOTS / 2,
          stores,
          schedulers,
          runsByKey);
      schedulers.get(2).close(); // mid-backlog: its unrun claims are released, not left to expire
      awaitOrExplain(
          Duration.ofSeconds(120),
          () ->
              oneShotsRun(runsByKey) == ONE_SHOTS
                  && runsByKey.getOrDefault("every-0", new AtomicInteger()).get() >= 20,
          stores,
          schedulers,
          runsByKey);
    } finally {
      schedulers.forEach(Scheduler::close);
    }

    assertThat(overlaps).as("runs of one job that overlapped").hasValue(0);
    assertThat(recoveries).as("runs flagged as recoveries").hasValue(0);
    assertThat(runsByFire.entrySet().stream().filter(e -> e.getValue().get() > 1).toList())
        .as("fires that ran twice")
        .isEmpty();
    for (int i = 0; i < ONE_SHOTS; i++) {
      assertThat(runsByKey.get("once-" + i)).as("runs of once-%d", i).hasValue(1);
    }
    assertThat(runsByInstance).as("instances that ran fires").containsKeys("s0", "s1");

    RunPipelineStressTest.assertEveryRunWrittenBack(stores, runsByKey, ONE_SHOTS + PERIODIC);
  }

  /**
   * Awaits {@code done}; on a timeout fails with what a reader needs to tell a lost fire from a
   * slow machine: the one-shots not run and their rows, every instance's stats, and the stacks of
   * the schedulers' threads.
   */
  private static void awaitOrExplain(
      Duration limit,
      java.util.concurrent.Callable<Boolean> done,
      Supplier<JobStore> stores,
      List<Scheduler> schedulers,
      Map<String, AtomicInteger> runsByKey) {
    try {
      await().atMost(limit).until(done);
    } catch (ConditionTimeoutException timeout) {
      StringBuilder why = new StringBuilder("not done within ").append(limit).append('\n');
      List<String> missing = new ArrayList<>();
      for (int i = 0; i < ONE_SHOTS; i++) {
        if (!runsByKey.containsKey("once-" + i)) {
          missing.add("once-" + i);
        }
      }
      why.append(missing.size()).append(" one-shot(s) not run; every-0 ran ");
      why.append(runsByKey.getOrDefault("every-0", new AtomicInteger())).append(" time(s)\n");
      try (JobStore store = stores.get()) {
        store.open();
        for (String key : missing.subList(0, Math.min(10, missing.size()))) {
          why.append("  ").append(store.find(key)).append('\n');
        }
      } catch (RuntimeException ex) {
        why.append("  (rows not readable: ").append(ex).append(")\n");
      }
      for (int i = 0; i < schedulers.size(); i++) {
        try {
          why.append("s").append(i).append(": ").append(schedulers.get(i).stats()).append('\n');
        } catch (RuntimeException closed) {
          why.append("s").append(i).append(": ").append(closed.getMessage()).append('\n');
        }
      }
      Thread.getAllStackTraces()
          .forEach(
              (t, stack) -> {
                if (t.getName().startsWith("kairos-")) {
                  why.append(t.getName()).append(' ').append(t.getState()).append('\n');
                  for (StackTraceElement f : stack) {
                    why.append("    at ").append(f).append('\n');
                  }
                }
              });
      throw new AssertionError(why.toString(), timeout);
    }
  }

  private static long oneShotsRun(Map<String, AtomicInteger> runsByKey) {
    return runsByKey.keySet().stream().filter(k -> k.startsWith("once-")).count();
  }
}
