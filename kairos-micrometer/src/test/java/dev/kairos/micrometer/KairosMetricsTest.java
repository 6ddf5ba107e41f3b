package dev.kairos.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.LimitStatus;
import dev.kairos.Misfire;
import dev.kairos.Retry;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerStats;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Meters recorded from a real scheduler on a manual clock: exact counts and lateness. */
class KairosMetricsTest {
  private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");
  private final ManualClock clock = new ManualClock(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private Scheduler scheduler;

  @AfterEach
  void close() {
    if (scheduler != null) {
      scheduler.close();
    }
  }

  private Scheduler start(KairosMetrics metrics) {
    scheduler =
        Kairos.builder()
            .store(new InMemoryStore())
            .clock(clock)
            .workers(2)
            .listener(metrics)
            .handler("ok", ctx -> {})
            .handler(
                "boom",
                ctx -> {
                  throw new IllegalStateException("boom");
                })
            .build();
    metrics.bindTo(scheduler);
    scheduler.start();
    return scheduler;
  }

  private double count(String name, String... tags) {
    var counter = registry.find(name).tags(tags).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void successfulLateRun_countsStartAndSuccess_andRecordsExactLateness() {
    start(KairosMetrics.builder(registry).build());
    scheduler.schedule(JobSpec.named("report").handler("ok").at(T0.plusSeconds(10)));

    clock.advance(Duration.ofSeconds(15)); // the fire starts 5 s after it was due
    await().atMost(Duration.ofSeconds(10)).until(() -> count(KairosMetrics.RUNS_FINISHED) == 1);

    assertThat(count(KairosMetrics.RUNS_STARTED, "key", "report", "handler", "ok")).isEqualTo(1);
    assertThat(count(KairosMetrics.RUNS_FINISHED, "key", "report", "outcome", "success"))
        .isEqualTo(1);
    Timer lateness = registry.find(KairosMetrics.FIRE_LATENESS).tags("key", "report").timer();
    assertThat(lateness.count()).isEqualTo(1);
    assertThat(lateness.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(5000);
    assertThat(registry.find(KairosMetrics.RUN_DURATION).tags("outcome", "success").timer().count())
        .isEqualTo(1);
  }

  @Test
  void backfillRuns_countedAsRuns_butRecordNoLateness() {
    start(KairosMetrics.builder(registry).build());
    scheduler.schedule(
        JobSpec.named("hourly")
            .handler("ok")
            .fixedRate(Duration.ofHours(1))
            .startAt(T0.plusSeconds(3600)));
    clock.set(T0.plusSeconds(3 * 3600 + 60)); // three fires in the past, none run yet
    scheduler.pause("hourly");

    assertThat(scheduler.backfill("hourly", T0.plusSeconds(3600), T0.plusSeconds(3 * 3600)))
        .isEqualTo(2);
    scheduler.resume("hourly");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count(KairosMetrics.RUNS_STARTED, "key", "hourly") >= 3);
    await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.history("hourly", 10).size() >= 3);

    long backfills =
        scheduler.history("hourly", 10).stream().filter(dev.kairos.RunRecord::backfill).count();
    assertThat(backfills).isEqualTo(2);
    Timer lateness = registry.find(KairosMetrics.FIRE_LATENESS).tags("key", "hourly").timer();
    long regular = scheduler.history("hourly", 10).size() - backfills;
    assertThat(lateness.count()).isEqualTo(regular); // the backfill runs recorded none
  }

  @Test
  void failingRunWithRetry_countsFailuresAndOneRetry_latenessOnlyForFirstAttempt() {
    start(KairosMetrics.builder(registry).build());
    scheduler.schedule(
        JobSpec.named("flaky")
            .handler("boom")
            .at(T0)
            .retry(Retry.backoff(2, Duration.ofSeconds(1))));

    await().atMost(Duration.ofSeconds(10)).until(() -> count(KairosMetrics.RETRIES) == 1);
    clock.advance(Duration.ofSeconds(1));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count(KairosMetrics.RUNS_FINISHED, "outcome", "failure") == 2);

    assertThat(count(KairosMetrics.RUNS_STARTED, "key", "flaky")).isEqualTo(2);
    assertThat(count(KairosMetrics.RETRIES, "key", "flaky")).isEqualTo(1);
    assertThat(registry.find(KairosMetrics.FIRE_LATENESS).timer().count()).isEqualTo(1);
    assertThat(count(KairosMetrics.RUNS_FINISHED, "outcome", "success")).isZero();
  }

  @Test
  void missedFires_skipPolicy_countsDroppedFiresByPolicy() {
    start(KairosMetrics.builder(registry).build());
    scheduler.schedule(
        JobSpec.named("tick")
            .handler("ok")
            .fixedRate(Duration.ofMinutes(1))
            .misfire(Misfire.skip()));
    await().atMost(Duration.ofSeconds(10)).until(() -> count(KairosMetrics.RUNS_FINISHED) == 1);

    clock.advance(Duration.ofMinutes(10).plusSeconds(30)); // fires at 1..10 min are overdue
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count(KairosMetrics.FIRES_DROPPED, "policy", "skip", "key", "tick") > 0);

    assertThat(count(KairosMetrics.FIRES_DROPPED, "policy", "skip", "key", "tick")).isEqualTo(10);
  }

  @Test
  void keyTagsOff_leavesOnlyTheHandlerTag() {
    start(KairosMetrics.builder(registry).keyTags(false).tags(Tags.of("app", "a")).build());
    scheduler.schedule(JobSpec.named("one").handler("ok").at(T0));
    scheduler.schedule(JobSpec.named("two").handler("ok").at(T0));

    await().atMost(Duration.ofSeconds(10)).until(() -> count(KairosMetrics.RUNS_FINISHED) == 2);

    assertThat(registry.find(KairosMetrics.RUNS_STARTED).counters()).hasSize(1);
    var started = registry.get(KairosMetrics.RUNS_STARTED).counter();
    assertThat(started.getId().getTag("key")).isNull();
    assertThat(started.getId().getTag("handler")).isEqualTo("ok");
    assertThat(started.getId().getTag("app")).isEqualTo("a");
    assertThat(started.count()).isEqualTo(2);
  }

  @Test
  void gauges_readTheSchedulersStats() {
    start(KairosMetrics.builder(registry).build());
    scheduler.schedule(JobSpec.named("later").handler("ok").at(T0.plusSeconds(60)));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> registry.get(KairosMetrics.JOBS_QUEUED).gauge().value() == 1);
    assertThat(registry.get(KairosMetrics.WORKERS).gauge().value()).isEqualTo(2);
    assertThat(registry.get(KairosMetrics.WORKERS_BUSY).gauge().value()).isZero();
    assertThat(registry.get(KairosMetrics.STORE_AVAILABLE).gauge().value()).isEqualTo(1);
  }

  @Test
  void eachRun_recordsOneWriteBack_withoutJobTags() {
    start(KairosMetrics.builder(registry).build());
    scheduler.schedule(JobSpec.named("one").handler("ok").at(T0));
    scheduler.schedule(JobSpec.named("two").handler("boom").at(T0));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              Timer t = registry.find(KairosMetrics.STORE_WRITEBACK).timer();
              return t != null && t.count() == 2;
            });
    Timer writeBack = registry.get(KairosMetrics.STORE_WRITEBACK).timer();
    assertThat(writeBack.getId().getTags()).isEmpty();
    assertThat(registry.find(KairosMetrics.STORE_WRITEBACK).timers()).hasSize(1);
  }

  /** The timer records the duration the engine measured, not one of its own. */
  @Test
  void writeBack_recordsTheEnginesDuration() {
    KairosMetrics metrics = KairosMetrics.builder(registry).build();
    metrics.runWrittenBack(null, Duration.ofMillis(42));

    Timer writeBack = registry.get(KairosMetrics.STORE_WRITEBACK).timer();
    assertThat(writeBack.count()).isEqualTo(1);
    assertThat(writeBack.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(42);
  }

  @Test
  void claimsLost_countedByKey_orUntaggedWithoutKeyTags() {
    KairosMetrics.builder(registry).build().claimLost("job", T0);
    KairosMetrics.builder(registry).build().claimLost("job", T0.plusSeconds(60));
    assertThat(count(KairosMetrics.CLAIMS_LOST, "key", "job")).isEqualTo(2);

    SimpleMeterRegistry other = new SimpleMeterRegistry();
    KairosMetrics.builder(other).keyTags(false).build().claimLost("job", T0);
    assertThat(other.get(KairosMetrics.CLAIMS_LOST).counter().getId().getTags()).isEmpty();
    assertThat(other.get(KairosMetrics.CLAIMS_LOST).counter().count()).isEqualTo(1);
  }

  @Test
  void changesMissed_countedByKey_orUntaggedWithoutKeyTags() {
    KairosMetrics.builder(registry).build().changeMissed("job", T0);
    assertThat(count(KairosMetrics.CHANGES_MISSED, "key", "job")).isEqualTo(1);

    SimpleMeterRegistry other = new SimpleMeterRegistry();
    KairosMetrics.builder(other).keyTags(false).build().changeMissed("job", T0);
    assertThat(other.get(KairosMetrics.CHANGES_MISSED).counter().getId().getTags()).isEmpty();
    assertThat(other.get(KairosMetrics.CHANGES_MISSED).counter().count()).isEqualTo(1);
  }

  /** A scheduler whose stats() are {@code stats} and that has no limits; nothing else answers. */
  private static Scheduler reporting(SchedulerStats stats) {
    return reporting(stats, List::of);
  }

  /**
   * A scheduler answering stats() and limits() alone, limits() from {@code limits} at each call.
   */
  private static Scheduler reporting(
      SchedulerStats stats, java.util.function.Supplier<List<LimitStatus>> limits) {
    return (Scheduler)
        Proxy.newProxyInstance(
            Scheduler.class.getClassLoader(),
            new Class<?>[] {Scheduler.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "stats" -> stats;
                  case "limits" -> limits.get();
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  @Test
  void clusterInstancesGauge_readsLiveInstancesFromStats() {
    KairosMetrics.builder(registry)
        .build()
        .bindTo(reporting(new SchedulerStats(0, 0, 4, true, 3, true)));

    assertThat(registry.get(KairosMetrics.CLUSTER_INSTANCES).gauge().value()).isEqualTo(3);
  }

  @Test
  void writeBacksWaitingGauge_readsStats() {
    KairosMetrics.builder(registry)
        .build()
        .bindTo(reporting(new SchedulerStats(0, 0, 4, true, 0, true, 2)));

    assertThat(registry.get(KairosMetrics.STORE_WRITEBACK_WAITING).gauge().value()).isEqualTo(2);
  }

  @Test
  void clusterInstancesGauge_isZeroOutsideClusterMode() {
    start(KairosMetrics.builder(registry).build());
    assertThat(registry.get(KairosMetrics.CLUSTER_INSTANCES).gauge().value()).isZero();
  }

  /**
   * With a limit of 2 and four due fires, the limit's gauges read 2 permits, 2 running, 2 waiting;
   * once every run has ended, 0 running and 0 waiting.
   */
  @Test
  void limitGauges_readPermitsRunningAndWaiting_perLimit() {
    CountDownLatch release = new CountDownLatch(1);
    KairosMetrics metrics = KairosMetrics.builder(registry).tags(Tags.of("app", "a")).build();
    scheduler =
        Kairos.builder()
            .store(new InMemoryStore())
            .clock(clock)
            .workers(4)
            .listener(metrics)
            .handler("export", ctx -> release.await())
            .handler("ok", ctx -> {})
            .maxConcurrent("export", 2)
            .build();
    metrics.bindTo(scheduler);
    scheduler.start();
    try {
      for (int i = 1; i <= 4; i++) {
        scheduler.schedule(JobSpec.named("export-" + i).handler("export").at(T0.plusMillis(i)));
      }
      clock.advance(Duration.ofSeconds(1));

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> limitGauge(KairosMetrics.LIMIT_WAITING, "export") == 2);
      assertThat(limitGauge(KairosMetrics.LIMIT_RUNNING, "export")).isEqualTo(2);
      assertThat(limitGauge(KairosMetrics.LIMIT_PERMITS, "export")).isEqualTo(2);
      Gauge running = registry.get(KairosMetrics.LIMIT_RUNNING).gauge();
      assertThat(running.getId().getTags())
          .containsExactly(Tag.of("app", "a"), Tag.of("limit", "export"));
      assertThat(running.getId().getBaseUnit()).isEqualTo("permits");
      assertThat(registry.get(KairosMetrics.LIMIT_WAITING).gauge().getId().getBaseUnit())
          .isEqualTo("fires");
    } finally {
      release.countDown();
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                limitGauge(KairosMetrics.LIMIT_RUNNING, "export") == 0
                    && limitGauge(KairosMetrics.LIMIT_WAITING, "export") == 0);
    assertThat(registry.find(KairosMetrics.RUNS_FINISHED).tag("handler", "export").counters())
        .hasSize(4)
        .allSatisfy(c -> assertThat(c.count()).isEqualTo(1));
  }

  private double limitGauge(String name, String limit) {
    return registry.get(name).tag("limit", limit).gauge().value();
  }

  /**
   * One set of gauges per limit reported at bind time, each reading its own limit; a limit the
   * scheduler stops reporting reads NaN (no sample), not a stale count.
   */
  @Test
  void limitGauges_onePerLimit_readTheirOwnStatus_NaNOnceNoLongerReported() {
    List<LimitStatus> reported =
        new java.util.concurrent.CopyOnWriteArrayList<>(
            List.of(
                new LimitStatus("crm", 1, Set.of("pull", "push"), 1, 7),
                new LimitStatus("export", 3, Set.of("export"), 2, 0)));
    Scheduler limited = reporting(new SchedulerStats(0, 0, 4, true), () -> List.copyOf(reported));
    KairosMetrics.builder(registry).build().bindTo(limited);

    assertThat(registry.find(KairosMetrics.LIMIT_RUNNING).gauges()).hasSize(2);
    assertThat(limitGauge(KairosMetrics.LIMIT_PERMITS, "crm")).isEqualTo(1);
    assertThat(limitGauge(KairosMetrics.LIMIT_RUNNING, "crm")).isEqualTo(1);
    assertThat(limitGauge(KairosMetrics.LIMIT_WAITING, "crm")).isEqualTo(7);
    assertThat(limitGauge(KairosMetrics.LIMIT_PERMITS, "export")).isEqualTo(3);
    assertThat(limitGauge(KairosMetrics.LIMIT_RUNNING, "export")).isEqualTo(2);
    assertThat(limitGauge(KairosMetrics.LIMIT_WAITING, "export")).isZero();

    reported.remove(0);
    assertThat(limitGauge(KairosMetrics.LIMIT_RUNNING, "crm")).isNaN();
    assertThat(limitGauge(KairosMetrics.LIMIT_RUNNING, "export")).isEqualTo(2);
  }

  @Test
  void limitGauges_noneWithoutLimits() {
    start(KairosMetrics.builder(registry).build());
    assertThat(registry.find(KairosMetrics.LIMIT_PERMITS).gauges()).isEmpty();
    assertThat(registry.find(KairosMetrics.LIMIT_RUNNING).gauges()).isEmpty();
    assertThat(registry.find(KairosMetrics.LIMIT_WAITING).gauges()).isEmpty();
  }

  @Test
  void percentileOutOfRange_isRejected() {
    assertThatThrownBy(() -> KairosMetrics.builder(registry).latencyPercentiles(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1.5");
  }
}
