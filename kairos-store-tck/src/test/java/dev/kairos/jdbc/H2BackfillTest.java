package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.spi.BackfillSlot;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Backfill over H2: a restart half-way continues; two clustered instances run each slot once. */
class H2BackfillTest {
  private static final Instant NOW = Instant.parse("2026-01-05T12:00:00Z");
  private static final Duration HOUR = Duration.ofHours(1);

  @TempDir Path dir;

  private final List<KairosScheduler> schedulers = new ArrayList<>();

  @AfterEach
  void closeAll() {
    schedulers.forEach(KairosScheduler::close);
  }

  private static JobSpec hourly(String key) {
    return JobSpec.named(key).handler("h").fixedRate(HOUR).startAt(NOW.minus(Duration.ofDays(2)));
  }

  private KairosScheduler onFile(ManualClock clock, dev.kairos.Job job) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(JdbcStore.builder().h2(dir).build())
                .clock(clock)
                .defaultZone(ZoneOffset.UTC)
                .gracePeriod(Duration.ofMillis(100))
                .handler("h", job));
    schedulers.add(s);
    return s;
  }

  /**
   * Closed while the fourth of ten slots runs: the first three are done and never run again; the
   * fourth, cut off, runs again after the restart (at least once), then the other six, in order.
   */
  @Test
  void restart_halfWay_remainingSlotsRunOnceInOrder() throws Exception {
    ManualClock clock = new ManualClock(NOW);
    List<Instant> firstRuns = new CopyOnWriteArrayList<>();
    CountDownLatch fourthInside = new CountDownLatch(1);
    KairosScheduler first =
        onFile(
            clock,
            ctx -> {
              if (!ctx.backfill()) {
                return;
              }
              firstRuns.add(ctx.scheduledFireTime());
              if (firstRuns.size() == 4) {
                fourthInside.countDown();
                new CountDownLatch(1).await(); // until close() interrupts it
              }
            });
    first.schedule(hourly("report"));
    assertThat(first.backfill("report", NOW.minus(HOUR.multipliedBy(10)), NOW)).isEqualTo(10);
    first.start();
    assertThat(fourthInside.await(30, TimeUnit.SECONDS)).isTrue();
    first.close();

    List<Instant> secondRuns = new CopyOnWriteArrayList<>();
    KairosScheduler second =
        onFile(
            clock,
            ctx -> {
              if (ctx.backfill()) {
                secondRuns.add(ctx.scheduledFireTime());
              }
            });
    assertThat(second.runBackfill()).isEqualTo(7);

    List<Instant> slots =
        IntStream.range(0, 10).mapToObj(i -> NOW.minus(HOUR.multipliedBy(10 - i))).toList();
    assertThat(firstRuns).containsExactlyElementsOf(slots.subList(0, 4));
    assertThat(secondRuns).containsExactlyElementsOf(slots.subList(3, 10));
    assertThat(second.backfill("report", NOW.minus(HOUR.multipliedBy(10)), NOW)).isZero();
    assertThat(second.history("report", 100))
        .filteredOn(r -> r.outcome() == RunOutcome.SUCCESS)
        .filteredOn(r -> r.scheduledFireTime().isBefore(NOW)) // not the regular run at NOW
        .extracting(RunRecord::scheduledFireTime)
        .containsExactlyInAnyOrderElementsOf(slots);
  }

  /** Two instances in cluster mode on one database: every slot runs once, each job's in order. */
  @Test
  void cluster_twoInstances_eachSlotRunsExactlyOnce() throws Exception {
    String url = "jdbc:h2:mem:backfill-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=10";
    Map<String, AtomicInteger> count = new ConcurrentHashMap<>();
    Map<String, List<Instant>> order = new ConcurrentHashMap<>();
    Map<String, String> where = new ConcurrentHashMap<>();
    int jobs = 4;
    int perJob = 6;
    CountDownLatch all = new CountDownLatch(jobs * perJob);
    List<KairosScheduler> two = new ArrayList<>();
    for (String id : List.of("a", "b")) {
      KairosScheduler s =
          Engines.build(
              Kairos.builder()
                  .store(JdbcStore.builder().url(url).poolSize(4).clustered(true).build())
                  .instanceId(id)
                  .defaultZone(ZoneOffset.UTC)
                  .handler(
                      "h",
                      (JobContext ctx) -> {
                        if (!ctx.backfill()) {
                          return;
                        }
                        String slot = ctx.key() + "@" + ctx.scheduledFireTime();
                        count.computeIfAbsent(slot, k -> new AtomicInteger()).incrementAndGet();
                        order
                            .computeIfAbsent(ctx.key(), k -> new CopyOnWriteArrayList<>())
                            .add(ctx.scheduledFireTime());
                        where.put(slot, id);
                        all.countDown();
                      }));
      schedulers.add(s);
      two.add(s);
    }
    two.forEach(KairosScheduler::start);
    Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS);
    for (int j = 0; j < jobs; j++) {
      two.get(0)
          .schedule(
              JobSpec.named("job" + j)
                  .handler("h")
                  .fixedRate(HOUR)
                  .startAt(now.minus(Duration.ofDays(2))));
    }
    for (int j = 0; j < jobs; j++) {
      two.get(j % 2).backfill("job" + j, now.minus(HOUR.multipliedBy(perJob)), now);
    }

    assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
    two.forEach(KairosScheduler::close);

    assertThat(count).hasSize(jobs * perJob);
    assertThat(count.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(order.values()).allSatisfy(fires -> assertThat(fires).isSorted());
    JdbcStore check = JdbcStore.builder().url(url).build();
    try {
      for (int j = 0; j < jobs; j++) {
        assertThat(check.jobStore().backfillSlots("job" + j))
            .extracting(BackfillSlot::state)
            .containsOnly(BackfillSlot.State.DONE);
      }
    } finally {
      check.close();
    }
  }
}
