package dev.kairos.engine.internal;

import static java.time.Duration.ofMillis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.Retry;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Overlap#replace()} end to end over the step API and a manual clock: a 100 ms fixed-rate
 * job from t=100 ms whose first run overruns. The clock is moved from inside the handler; the
 * replacer thread then interrupts the handler, which is the test thread.
 */
class ReplacePolicyTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final List<String> dropped = new CopyOnWriteArrayList<>();
  private final List<Boolean> flagAtStart = new CopyOnWriteArrayList<>();

  private Harness harness(FirstRun firstRun) {
    AtomicInteger n = new AtomicInteger();
    Harness[] h = new Harness[1];
    SchedulerListener listener =
        new SchedulerListener() {
          @Override
          public void overlapDropped(String key, Instant oldest, long count, Overlap p) {
            dropped.add(key + " " + Harness.ms(oldest) + " x" + count + " " + p);
          }
        };
    h[0] =
        new Harness(
            new InMemoryStore(),
            Kairos.builder().listener(listener),
            ctx -> {
              flagAtStart.add(Thread.currentThread().isInterrupted());
              if (n.incrementAndGet() == 1) {
                firstRun.run(h[0]);
              }
            });
    h[0].scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(ofMillis(100))
            .initialDelay(ofMillis(100))
            .misfire(Misfire.catchUp().threshold(ofMillis(1000)))
            .overlap(Overlap.replace()));
    return h[0];
  }

  private interface FirstRun {
    void run(Harness h) throws Exception;
  }

  /** Blocks until interrupted; fails the test (by returning) if no interrupt comes. */
  private static void blockUntilInterrupted() throws InterruptedException {
    new CountDownLatch(1).await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void theNextFireInterruptsTheRun_recordedInterrupted_notRetried_nextFireRunsAtOnce() {
    Harness h =
        harness(
            self -> {
              self.clock.advance(ofMillis(100)); // fire 200 comes due
              blockUntilInterrupted();
            });

    h.runUntil(Harness.T0.plusMillis(400));

    assertThat(h.fires()).containsExactly(100L, 200L, 300L, 400L);
    assertThat(h.starts()).containsExactly(100L, 200L, 300L, 400L);
    assertThat(dropped).isEmpty();
    assertThat(flagAtStart).containsOnly(false);
    List<RunRecord> history = h.scheduler.history("j", 10);
    RunRecord first =
        history.stream()
            .filter(r -> Harness.ms(r.scheduledFireTime()) == 100L)
            .findFirst()
            .orElseThrow();
    assertThat(first.outcome()).isEqualTo(RunOutcome.INTERRUPTED);
    assertThat(first.error())
        .startsWith(
            "replaced by the fire of 2026-01-05T00:00:00.200Z (overlap policy replace):"
                + " java.lang.InterruptedException");
    assertThat(history).filteredOn(r -> r.outcome() == RunOutcome.SUCCESS).hasSize(3);
    assertThat(h.scheduler.job("j").orElseThrow().nextFireTime())
        .isEqualTo(Harness.T0.plusMillis(500));
  }

  @Test
  void aHandlerThatThrowsSomethingElseOnInterrupt_isReplacedToo_notRetried() {
    Harness h =
        harness(
            self -> {
              self.clock.advance(ofMillis(100));
              try {
                blockUntilInterrupted();
              } catch (InterruptedException e) {
                throw new IllegalStateException("gave up", e);
              }
            });
    h.scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(ofMillis(100))
            .initialDelay(ofMillis(100))
            .misfire(Misfire.catchUp().threshold(ofMillis(1000)))
            .retry(Retry.backoff(3, ofMillis(10)))
            .overlap(Overlap.replace()));

    h.runUntil(Harness.T0.plusMillis(300));

    assertThat(h.fires()).containsExactly(100L, 200L, 300L);
    assertThat(h.runs).allSatisfy(c -> assertThat(c.attempt()).isOne());
    assertThat(h.scheduler.history("j", 10))
        .filteredOn(r -> r.outcome() == RunOutcome.INTERRUPTED)
        .singleElement()
        .satisfies(r -> assertThat(r.error()).contains("IllegalStateException: gave up"));
  }

  @Test
  void aHandlerThatIgnoresTheInterrupt_runsOn_thenTheNewestFireRuns_flagDoesNotLeak() {
    AtomicInteger sawInterrupt = new AtomicInteger();
    Harness h =
        harness(
            self -> {
              self.clock.advance(ofMillis(100)); // fire 200 due: interrupt
              try {
                blockUntilInterrupted();
              } catch (InterruptedException ignored) {
                sawInterrupt.incrementAndGet(); // and goes on regardless
              }
              self.clock.advance(ofMillis(250)); // ends at 450: 300 and 400 came due too
            });

    h.runUntil(Harness.T0.plusMillis(600));

    assertThat(sawInterrupt).hasValue(1);
    assertThat(h.fires()).containsExactly(100L, 400L, 500L, 600L);
    assertThat(h.starts()).containsExactly(100L, 450L, 500L, 600L);
    assertThat(dropped).containsExactly("j 200 x2 replace");
    assertThat(flagAtStart).containsOnly(false);
    assertThat(h.scheduler.history("j", 10))
        .extracting(RunRecord::outcome)
        .doesNotContain(RunOutcome.INTERRUPTED, RunOutcome.FAILURE);
  }

  @Test
  void aRunWithinItsPeriod_isNotInterrupted() {
    Harness h = harness(self -> self.clock.advance(ofMillis(99)));

    h.runUntil(Harness.T0.plusMillis(400));

    assertThat(h.fires()).containsExactly(100L, 200L, 300L, 400L);
    assertThat(h.scheduler.history("j", 10))
        .extracting(RunRecord::outcome)
        .containsOnly(RunOutcome.SUCCESS);
  }
}
