package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Overlap;
import dev.kairos.Retry;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.BackfillSlot;
import dev.kairos.spi.JobStore;
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
 * {@link Overlap#allow(int)} on one instance: real workers over a {@link ManualClock}, each run
 * blocking on a latch of its own fire that the test opens, so "n at once" is what the handlers
 * observe, never a matter of sleeping.
 */
class AllowPolicyTest {
  private static final Instant T0 = Harness.T0;
  private static final Duration SECOND = Duration.ofSeconds(1);

  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryStore store = new InMemoryStore();
  private final List<Instant> started = new CopyOnWriteArrayList<>();
  private final List<JobContext> contexts = new CopyOnWriteArrayList<>();
  private final Map<Instant, CountDownLatch> gates = new ConcurrentHashMap<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private KairosScheduler scheduler;

  @AfterEach
  void close() {
    gates.values().forEach(CountDownLatch::countDown);
    if (scheduler != null) {
      scheduler.close();
    }
  }

  private CountDownLatch gate(Instant fire) {
    return gates.computeIfAbsent(fire, f -> new CountDownLatch(1));
  }

  private KairosScheduler start(JobStore s) {
    scheduler =
        Engines.build(
            Kairos.builder()
                .store(s)
                .clock(clock)
                .workers(6)
                .gracePeriod(Duration.ofMillis(200))
                .handler(
                    "h",
                    ctx -> {
                      maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                      contexts.add(ctx);
                      started.add(ctx.scheduledFireTime());
                      try {
                        gate(ctx.scheduledFireTime()).await();
                      } finally {
                        running.decrementAndGet();
                      }
                    }));
    scheduler.start();
    return scheduler;
  }

  private static JobSpec everySecond(int n) {
    return JobSpec.named("j").handler("h").fixedRate(SECOND).overlap(Overlap.allow(n));
  }

  private void awaitStarted(int n) {
    await().atMost(Duration.ofSeconds(20)).until(() -> started.size() >= n);
  }

  private void awaitIdle() {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> running.get() == 0 && scheduler.stats().runningJobs() == 0);
  }

  private static Instant t(int seconds) {
    return T0.plusSeconds(seconds);
  }

  /**
   * allow(2): the second fire starts beside the first; the third waits while two run and starts the
   * moment one of them ends (no lost wake-up: nothing else moves the clock); every fire runs once,
   * and each run's history entry is written when it ends, in any order.
   */
  @Test
  void allowTwo_secondFireRunsBesideTheFirst_thirdWaitsForOneToEnd_eachFireOnce() {
    start(store).schedule(everySecond(2));
    awaitStarted(1);
    assertThat(started).containsExactly(t(0));

    clock.advance(SECOND);
    awaitStarted(2);
    assertThat(started).containsExactly(t(0), t(1));

    clock.advance(SECOND); // t(2) is due, but two runs are going
    assertThat(scheduler.job("j").map(JobInfo::nextFireTime)).contains(t(2));
    gate(t(1)).countDown(); // the newer run ends first
    awaitStarted(3);
    assertThat(started).containsExactly(t(0), t(1), t(2));

    gate(t(0)).countDown();
    gate(t(2)).countDown();
    awaitIdle();
    assertThat(maxRunning.get()).isEqualTo(2);
    assertThat(scheduler.history("j", 10))
        .extracting(RunRecord::scheduledFireTime)
        .containsExactlyInAnyOrder(t(0), t(1), t(2));
    assertThat(scheduler.history("j", 10))
        .allSatisfy(r -> assertThat(r.outcome()).isEqualTo(RunOutcome.SUCCESS));
    JobInfo info = scheduler.job("j").orElseThrow();
    assertThat(info.nextFireTime()).isEqualTo(t(3));
    assertThat(info.runCount()).isEqualTo(3);
    assertThat(store.backfillSlots("j")).as("no run is recorded as going").isEmpty();
  }

  /**
   * A pause made while runs go on is never undone by them: they end and are written back, the job
   * stays paused, and no later fire starts; after resume the misfire policy judges the fires missed
   * meanwhile (the default runs the newest once).
   */
  @Test
  void pauseDuringConcurrentRuns_runsEnd_jobStaysPaused_resumeGoesOn() {
    start(store).schedule(everySecond(3));
    awaitStarted(1);
    clock.advance(SECOND);
    awaitStarted(2);

    assertThat(scheduler.pause("j")).isTrue();
    gate(t(0)).countDown();
    gate(t(1)).countDown();
    awaitIdle();
    clock.advance(SECOND.multipliedBy(3));
    assertThat(scheduler.job("j").orElseThrow().state()).isEqualTo(dev.kairos.JobState.PAUSED);
    assertThat(scheduler.history("j", 10)).hasSize(2);
    assertThat(started).containsExactly(t(0), t(1));

    gate(t(4)).countDown();
    assertThat(scheduler.resume("j")).isTrue();
    awaitStarted(3);
    assertThat(started.get(2)).as("the misfire policy's pick after the pause").isEqualTo(t(4));
  }

  /**
   * Runs cut off by {@code close()} keep their record; the next start of the instance runs each
   * again once, with {@code recovery()} true and {@code backfill()} false, and deletes the record.
   */
  @Test
  void runsCutOffByClose_runAgainAtTheNextStart_flaggedRecovery() {
    start(store).schedule(everySecond(2));
    awaitStarted(1);
    clock.advance(SECOND);
    awaitStarted(2);
    scheduler.close(); // interrupts both handlers after the grace period
    assertThat(store.backfillSlots("j"))
        .extracting(BackfillSlot::fireTime, BackfillSlot::kind)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(t(0), BackfillSlot.Kind.RUN),
            org.assertj.core.groups.Tuple.tuple(t(1), BackfillSlot.Kind.RUN));

    started.clear();
    contexts.clear();
    gate(t(0)).countDown();
    gate(t(1)).countDown();
    start(store);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> contexts.stream().filter(JobContext::recovery).count() >= 2);
    assertThat(contexts.stream().filter(JobContext::recovery).map(JobContext::scheduledFireTime))
        .containsExactlyInAnyOrder(t(0), t(1));
    assertThat(contexts.stream().filter(JobContext::recovery))
        .allSatisfy(c -> assertThat(c.backfill()).isFalse());
    await().atMost(Duration.ofSeconds(20)).until(() -> store.backfillSlots("j").isEmpty());
    assertThat(scheduler.history("j", 10))
        .filteredOn(RunRecord::recovery)
        .extracting(RunRecord::scheduledFireTime)
        .containsExactlyInAnyOrder(t(0), t(1));
  }

  /** Bad input is refused, naming the key and the value; nothing is stored. */
  @Test
  void badInput_refused_namingKeyAndValue() {
    assertThatThrownBy(() -> Overlap.allow(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allow(n)")
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> Overlap.allow(Overlap.MAX_CONCURRENT_RUNS + 1))
        .hasMessageContaining("was " + (Overlap.MAX_CONCURRENT_RUNS + 1));
    start(store);
    assertThatThrownBy(
            () -> scheduler.schedule(everySecond(2).retry(Retry.backoff(3, Duration.ofSeconds(1)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'j'")
        .hasMessageContaining("allow(2)")
        .hasMessageContaining("retry");
    assertThat(scheduler.job("j")).isEmpty();
    assertThat(Overlap.Allow.parse("allow(7)")).contains(new Overlap.Allow(7));
    assertThat(Overlap.Allow.parse("allow(x)")).isEmpty();
    assertThat(Overlap.allow(3)).hasToString("allow(3)");
  }

  /** A store without concurrent runs refuses allow(n) jobs by name; allow(1) is forbid. */
  @Test
  void storeWithoutConcurrentRuns_refusesAllowN_acceptsAllowOne() {
    JobStore plain = new NoConcurrentRuns(store);
    start(plain);
    assertThatThrownBy(() -> scheduler.schedule(everySecond(2)))
        .hasMessageContaining("'j'")
        .hasMessageContaining("supportsConcurrentRuns");
    scheduler.schedule(everySecond(1));
    awaitStarted(1);
    clock.advance(SECOND);
    gate(t(0)).countDown();
    awaitStarted(2);
    assertThat(maxRunning.get()).isEqualTo(1);
  }

  /** Delegates everything but the concurrent-runs capability. */
  private static final class NoConcurrentRuns implements JobStore {
    private final InMemoryStore d;

    NoConcurrentRuns(InMemoryStore d) {
      this.d = d;
    }

    @Override
    public dev.kairos.spi.Upsert upsert(dev.kairos.spi.JobRecord fresh) {
      return d.upsert(fresh);
    }

    @Override
    public java.util.Optional<dev.kairos.spi.JobRecord> find(String key) {
      return d.find(key);
    }

    @Override
    public List<dev.kairos.spi.JobRecord> findAll() {
      return d.findAll();
    }

    @Override
    public java.util.Optional<dev.kairos.spi.JobRecord> replace(
        dev.kairos.spi.JobRecord updated, long expectedVersion) {
      return d.replace(updated, expectedVersion);
    }

    @Override
    public boolean delete(String key) {
      return d.delete(key);
    }

    @Override
    public List<dev.kairos.spi.JobRecord> due(
        dev.kairos.spi.WindowCursor after, Instant before, int limit) {
      return d.due(after, before, limit);
    }

    @Override
    public void runStarted(String key, Instant fire, Instant start, String instance) {
      d.runStarted(key, fire, start, instance);
    }

    @Override
    public java.util.Optional<dev.kairos.spi.JobRecord> runFinished(
        dev.kairos.spi.RunResult result) {
      return d.runFinished(result);
    }

    @Override
    public List<RunRecord> history(String key, int limit) {
      return d.history(key, limit);
    }
  }
}
