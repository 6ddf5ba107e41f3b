package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.PostgresTestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-back queue and batched start marks under load (issue #9, item 1): four workers run
 * 1,500 due one-shots and 40 jobs every 10 ms while their write-backs are batched behind them. No
 * fire runs twice, none is lost, no job overlaps itself, and after {@code close()} every run that
 * started is written back and no row is left marked RUNNING (marks of due jobs that did not run are
 * cleared at close). Real time, generous bounds; a lost wake-up of the queue or of a mark's waiter
 * shows as a timeout, a double fire or overlap as a count.
 */
class RunPipelineStressTest {
  private static final int ONE_SHOTS = 1_500;
  private static final int PERIODIC = 40;

  @TempDir Path dir;

  @Test
  void h2_threeRounds() {
    for (int round = 0; round < 3; round++) {
      Path d = dir.resolve("round-" + round);
      check(() -> JdbcStore.h2(d).jobStore());
    }
  }

  @Test
  void postgres() {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      check(() -> db.builder().poolSize(8).build().jobStore());
    }
  }

  private static void check(Supplier<JobStore> stores) {
    Map<String, AtomicInteger> runsByFire = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> runsByKey = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    Instant now = Instant.now();
    Scheduler scheduler =
        Kairos.builder()
            .store(stores.get())
            .workers(4)
            .handler(
                "h",
                ctx -> {
                  AtomicInteger mine =
                      inFlight.computeIfAbsent(ctx.key(), k -> new AtomicInteger());
                  if (mine.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                  }
                  runsByFire
                      .computeIfAbsent(
                          ctx.key() + "@" + ctx.scheduledFireTime(), k -> new AtomicInteger())
                      .incrementAndGet();
                  runsByKey.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
                  mine.decrementAndGet();
                })
            .build();
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < ONE_SHOTS; i++) {
      specs.add(JobSpec.named("once-" + i).handler("h").at(now));
    }
    for (int i = 0; i < PERIODIC; i++) {
      specs.add(JobSpec.named("every-" + i).handler("h").fixedRate(Duration.ofMillis(10)));
    }
    scheduler.scheduleAll(specs);
    scheduler.start();
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  runsByKey.keySet().stream().filter(k -> k.startsWith("once-")).count()
                          == ONE_SHOTS
                      && runsByKey.getOrDefault("every-0", new AtomicInteger()).get() >= 20);
    } finally {
      scheduler.close();
    }

    assertThat(overlaps).as("runs of one job that overlapped").hasValue(0);
    assertThat(runsByFire.entrySet().stream().filter(e -> e.getValue().get() > 1).toList())
        .as("fires that ran twice")
        .isEmpty();
    for (int i = 0; i < ONE_SHOTS; i++) {
      assertThat(runsByKey.get("once-" + i)).as("runs of once-%d", i).hasValue(1);
    }

    // What close() left in the store: every started run written back, no mark left behind.
    assertEveryRunWrittenBack(stores, runsByKey, ONE_SHOTS + PERIODIC);
  }

  /**
   * What the schedulers left in the store after close: {@code rows} jobs, none RUNNING, each with
   * as many runs written back as ran ({@code runsByKey}), the one-shots ({@code once-*}) complete.
   */
  static void assertEveryRunWrittenBack(
      Supplier<JobStore> stores, Map<String, AtomicInteger> runsByKey, int rows) {
    try (JobStore store = stores.get()) {
      store.open();
      List<JobRecord> all = store.findAll();
      assertThat(all).hasSize(rows);
      assertThat(all).noneMatch(r -> r.state() == JobState.RUNNING);
      for (JobRecord r : all) {
        AtomicInteger ran = runsByKey.get(r.key());
        assertThat(r.runCount())
            .as("runs of %s written back", r.key())
            .isEqualTo(ran == null ? 0 : ran.get());
        if (r.key().startsWith("once-")) {
          assertThat(r.state()).isEqualTo(JobState.COMPLETE);
        }
      }
    }
  }
}
