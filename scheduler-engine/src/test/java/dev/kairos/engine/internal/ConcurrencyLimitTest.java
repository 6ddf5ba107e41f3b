package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kairos.ConcurrencyLimit;
import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrency limits on one instance, real workers over a {@link ManualClock}: runs block on a
 * latch the test opens, so "at most n at once" is observed by the handlers themselves, never by
 * sleeping.
 */
class ConcurrencyLimitTest {
  private static final Instant T0 = Harness.T0;

  private final ManualClock clock = new ManualClock(T0);
  private final List<String> started = new CopyOnWriteArrayList<>();
  private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final List<JobContext> contexts = new CopyOnWriteArrayList<>();
  private final InMemoryStore store = new InMemoryStore();
  private KairosScheduler scheduler;

  @AfterEach
  void close() {
    gates.values().forEach(CountDownLatch::countDown);
    if (scheduler != null) {
      scheduler.close();
    }
  }

  /** A handler that records its run and blocks until the test opens the job's gate. */
  private final Job gated =
      ctx -> {
        int now = running.incrementAndGet();
        maxRunning.accumulateAndGet(now, Math::max);
        contexts.add(ctx);
        started.add(ctx.key());
        try {
          gate(ctx.key()).await();
        } finally {
          running.decrementAndGet();
        }
      };

  private CountDownLatch gate(String key) {
    return gates.computeIfAbsent(key, k -> new CountDownLatch(1));
  }

  private KairosScheduler start(Kairos.Builder b) {
    scheduler =
        Engines.build(b.store(store).clock(clock).workers(6).gracePeriod(Duration.ofSeconds(1)));
    scheduler.start();
    return scheduler;
  }

  private void awaitStarted(int n) {
    await().atMost(Duration.ofSeconds(20)).until(() -> started.size() >= n);
  }

  @Test
  void sixJobsLimitedToTwo_neverMoreThanTwo_allRun_earliestDueFirst() {
    start(Kairos.builder().handler("h", gated).maxConcurrent("h", 2));
    for (int i = 6; i >= 1; i--) { // scheduled in reverse, so queue order is not fire order
      scheduler.schedule(JobSpec.named("j" + i).handler("h").at(T0.plusMillis(100L * i)));
    }
    clock.advance(Duration.ofSeconds(1)); // all six due at once

    awaitStarted(2);
    assertThat(started).containsExactlyInAnyOrder("j1", "j2");
    for (int i = 1; i <= 4; i++) {
      gate("j" + i).countDown(); // each run that ends lets exactly the next due one start
      awaitStarted(2 + i);
      assertThat(started.get(1 + i)).isEqualTo("j" + (2 + i));
    }
    gate("j5").countDown();
    gate("j6").countDown();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> scheduler.stats().runningJobs() == 0 && running.get() == 0);
    assertThat(started).hasSize(6);
    assertThat(maxRunning.get()).isEqualTo(2);
  }

  /**
   * Backfill runs count against the limit: while a regular run holds the only permit, a backfill
   * pass runs nothing (the step API answers 0 at once: without the limit it would run the slots
   * beside it); once the regular run ends, the backfill thread is woken and runs the slots, one at
   * a time.
   */
  @Test
  void backfillRuns_holdPermits_waitForARegularRun_thenRunWhenWoken() {
    start(Kairos.builder().handler("h", gated).maxConcurrent("h", 1));
    scheduler.schedule(JobSpec.named("report").handler("h").cron("0 0 0 * * ?")); // next: T0 + 1 d
    scheduler.schedule(JobSpec.named("b").handler("h").at(T0.plusMillis(100)));
    gate("report").countDown(); // backfill runs of "report" do not block
    clock.advance(Duration.ofSeconds(1));
    awaitStarted(1);
    assertThat(started).containsExactly("b");

    assertThat(scheduler.backfill("report", T0.minus(Duration.ofDays(3)), T0)).isEqualTo(3);
    assertThat(scheduler.runBackfill()).as("the permit is b's").isZero();
    assertThat(started).containsExactly("b");

    gate("b").countDown();
    awaitStarted(4);
    assertThat(started).containsExactly("b", "report", "report", "report");
    assertThat(contexts.subList(1, 4)).allSatisfy(ctx -> assertThat(ctx.backfill()).isTrue());
    assertThat(maxRunning.get()).isEqualTo(1);
  }

  @Test
  void groupLimit_isSharedByItsHandlers_otherHandlersAreFree() {
    start(
        Kairos.builder()
            .handler("a", gated)
            .handler("b", gated)
            .handler("free", gated)
            .maxConcurrent("ab", 1, "a", "b"));
    scheduler.schedule(JobSpec.named("a1").handler("a").at(T0.plusMillis(100)));
    scheduler.schedule(JobSpec.named("b1").handler("b").at(T0.plusMillis(200)));
    scheduler.schedule(JobSpec.named("free1").handler("free").at(T0.plusMillis(300)));
    clock.advance(Duration.ofSeconds(1));

    awaitStarted(2); // a1 and the unlimited free1; b1 waits for a1
    assertThat(started).containsExactlyInAnyOrder("a1", "free1");
    gate("a1").countDown();
    awaitStarted(3);
    assertThat(started.get(2)).isEqualTo("b1");
  }

  /**
   * A fire that waited for a permit past its misfire threshold is judged by its policy when it
   * finally starts: {@code skip()} runs nothing and moves to the next slot; {@code fireOnce()} runs
   * once for the missed fires, late.
   */
  @Test
  void misfire_isJudgedWhenTheWaitingFireStarts() {
    List<String> dropped = new CopyOnWriteArrayList<>();
    SchedulerListener listener =
        new SchedulerListener() {
          @Override
          public void firesDropped(String key, Instant oldest, long n, Misfire policy) {
            dropped.add(key + " " + Harness.ms(oldest) + " x" + n);
          }
        };
    start(Kairos.builder().handler("h", gated).maxConcurrent("h", 1).listener(listener));
    scheduler.schedule(JobSpec.named("blocker").handler("h").at(T0.plusMillis(100)));
    scheduler.schedule(
        JobSpec.named("skipper")
            .handler("h")
            .fixedRate(Duration.ofMinutes(10))
            .startAt(T0.plusMillis(200))
            .misfire(Misfire.skip()));
    scheduler.schedule(
        JobSpec.named("once")
            .handler("h")
            .fixedRate(Duration.ofMinutes(10))
            .startAt(T0.plusMillis(300))
            .misfire(Misfire.fireOnce()));
    clock.advance(Duration.ofMillis(300)); // all three due; the blocker takes the only permit
    awaitStarted(1);
    assertThat(started).containsExactly("blocker");

    clock.advance(Duration.ofSeconds(5)); // the waiting fires are now 5 s late (threshold 1 s)
    gate("blocker").countDown();

    awaitStarted(2);
    gate("once").countDown();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> dropped.contains("skipper 200 x1") && running.get() == 0);
    assertThat(started).containsExactly("blocker", "once");
    JobContext once = contexts.get(1);
    assertThat(once.scheduledFireTime()).isEqualTo(T0.plusMillis(300));
    assertThat(once.actualStart()).isEqualTo(T0.plusMillis(5300));
    assertThat(store.find("skipper").orElseThrow().nextFireTime())
        .isEqualTo(T0.plusMillis(200).plus(Duration.ofMinutes(10)));
  }

  /** A waiting fire whose job is unscheduled or paused is dropped from the wait, not run. */
  @Test
  void waitingFire_unscheduledOrPaused_doesNotRun_andTheNextWaiterStillGetsThePermit() {
    start(Kairos.builder().handler("h", gated).maxConcurrent("h", 1));
    scheduler.schedule(JobSpec.named("w1").handler("h").at(T0.plusMillis(100)));
    scheduler.schedule(JobSpec.named("w2").handler("h").at(T0.plusMillis(200)));
    scheduler.schedule(JobSpec.named("w3").handler("h").at(T0.plusMillis(300)));
    scheduler.schedule(JobSpec.named("w4").handler("h").at(T0.plusMillis(400)));
    clock.advance(Duration.ofSeconds(1));
    awaitStarted(1);
    await().atMost(Duration.ofSeconds(20)).until(() -> scheduler.queued() == 3);

    scheduler.unschedule("w2");
    scheduler.pause("w3");
    gate("w1").countDown();

    awaitStarted(2);
    assertThat(started).containsExactly("w1", "w4");
  }

  @Test
  void build_refusesBadLimits_namingTheHandlerOrGroupAndValue() {
    Job j = ctx -> {};
    assertThatThrownBy(() -> Kairos.builder().handler("h", j).maxConcurrent("h", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'h'")
        .hasMessageContaining("0");
    assertThatThrownBy(
            () ->
                Engines.build(
                    Kairos.builder()
                        .store(new InMemoryStore())
                        .handler("h", j)
                        .maxConcurrent("nope", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'nope'")
        .hasMessageContaining("not registered");
    assertThatThrownBy(
            () ->
                Engines.build(
                    Kairos.builder()
                        .store(new InMemoryStore())
                        .handler("h", j)
                        .handler("k", j)
                        .maxConcurrent("h", 1)
                        .maxConcurrent("g", 2, "h", "k")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("handler 'h' is in two concurrency limits: 'h' and 'g'");
    assertThatThrownBy(
            () ->
                Engines.build(
                    Kairos.builder()
                        .store(new InMemoryStore())
                        .handler("h", j)
                        .handler("k", j)
                        .maxConcurrent("h", 2, "k")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("group 'h' has the name of a handler");
    assertThatThrownBy(() -> ConcurrencyLimit.group("g", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'g' names no handler");
    assertThatThrownBy(() -> ConcurrencyLimit.group("g", 1, "a", "a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("twice");
  }
}
