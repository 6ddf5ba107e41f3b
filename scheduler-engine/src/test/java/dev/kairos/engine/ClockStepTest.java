package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Overlap;
import dev.kairos.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Fire times are wall-clock times, but a thread waits in monotonic time. When the wall clock steps
 * forward (an NTP correction, a virtual machine resumed after a pause, a laptop woken from sleep:
 * the monotonic clock does not count the suspension), a worker already waiting for a fire kept
 * waiting the monotonic time it had computed: the fire ran up to half the look-ahead (2.5 min by
 * default) late, or, for a replaced run, the run was not interrupted. Now every timed wait on a
 * fire time re-reads the clock at least once a second.
 *
 * <p>The tests step a real-time clock and wait in real time, with generous bounds: before the
 * change each waited the full minute.
 */
class ClockStepTest {
  private static final Duration STEP = Duration.ofSeconds(60);
  private static final long BOUND_SECONDS = 10;

  /**
   * The system clock plus an offset the test steps; counts down {@link #waiting} once something
   * computes a wait for {@link #watched}.
   */
  static final class SteppableClock implements TimeSource {
    private final AtomicLong offsetNanos = new AtomicLong();
    final AtomicReference<Instant> watched = new AtomicReference<>();
    final CountDownLatch waiting = new CountDownLatch(1);

    @Override
    public Instant now() {
      return Instant.now().plusNanos(offsetNanos.get());
    }

    @Override
    public long nanosUntil(Instant deadline) {
      long nanos = Duration.between(now(), deadline).toNanos();
      if (nanos > 0 && deadline.equals(watched.get())) {
        waiting.countDown();
      }
      return Math.max(0, nanos);
    }

    void step(Duration d) {
      offsetNanos.addAndGet(d.toNanos());
    }
  }

  @Test
  void aFireAlreadyWaitedFor_runsPromptlyWhenTheClockStepsPastIt() throws Exception {
    SteppableClock clock = new SteppableClock();
    CountDownLatch fired = new CountDownLatch(1);
    try (Scheduler s =
        Kairos.builder()
            .store(new InMemoryStore())
            .clock(clock)
            .workers(2)
            .handler("h", ctx -> fired.countDown())
            .build()) {
      Instant at = clock.now().plus(STEP).truncatedTo(ChronoUnit.SECONDS);
      clock.watched.set(at);
      s.schedule(JobSpec.named("nightly").handler("h").at(at));
      s.start();
      assertThat(clock.waiting.await(BOUND_SECONDS, TimeUnit.SECONDS))
          .as("a worker waits for the fire")
          .isTrue();

      clock.step(STEP);

      assertThat(fired.await(BOUND_SECONDS, TimeUnit.SECONDS))
          .as("the fire runs soon after the clock passed its time, not a minute later")
          .isTrue();
    }
  }

  @Test
  void aRunToBeReplaced_isInterruptedPromptlyWhenTheClockStepsPastTheNextFire() throws Exception {
    SteppableClock clock = new SteppableClock();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    try (Scheduler s =
        Kairos.builder()
            .store(new InMemoryStore())
            .clock(clock)
            .workers(2)
            .handler(
                "long",
                ctx -> {
                  started.countDown();
                  try {
                    Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                  } catch (InterruptedException e) {
                    interrupted.countDown();
                  }
                })
            .build()) {
      // Far enough ahead that schedule() returns before it on a slow machine (a start already
      // past at schedule() time means the next slot, and the latches below would wait for nothing).
      Instant first = clock.now().plusMillis(1000).truncatedTo(ChronoUnit.MILLIS);
      clock.watched.set(first.plus(STEP));
      s.schedule(
          JobSpec.named("replaced")
              .handler("long")
              .fixedRate(STEP)
              .startAt(first)
              .overlap(Overlap.replace()));
      s.start();
      assertThat(started.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("the first run").isTrue();
      assertThat(clock.waiting.await(BOUND_SECONDS, TimeUnit.SECONDS))
          .as("the next fire is waited for")
          .isTrue();

      clock.step(STEP);

      assertThat(interrupted.await(BOUND_SECONDS, TimeUnit.SECONDS))
          .as("the next fire replaces the run soon after the clock passed it")
          .isTrue();
    }
  }

  /**
   * Cluster mode: the scheduler's clock follows the store's, re-sampled every 10 s. When the
   * store's clock steps back (the database host's clock corrected), the instance is ahead until its
   * next sample: it takes fires that are not yet due, the store refuses their claims as early, and
   * each was queued again at "now + how early" on the instance's wrong clock, so once the clock was
   * re-sampled the fire ran late by the whole step. Now a claim refused as early re-samples the
   * clock at once and the fire is queued for its due time.
   */
  @Test
  void clusterClock_storeClockStepsBack_aFireRefusedAsEarlyRunsAtItsTime_notLateByTheStep()
      throws Exception {
    SteppableClock storeClock = new SteppableClock();
    storeClock.step(STEP); // the database's clock runs a minute ahead
    InMemoryStore store = InMemoryStore.shared(storeClock);
    AtomicReference<Instant> ranAt = new AtomicReference<>();
    CountDownLatch ran = new CountDownLatch(1);
    try (Scheduler s =
        Kairos.builder()
            .store(store)
            .instanceId("follower")
            .workers(2)
            .handler(
                "h",
                ctx -> {
                  ranAt.set(storeClock.now());
                  ran.countDown();
                })
            .build()) {
      s.start(); // its clock samples the store's: a minute ahead of the system clock
      storeClock.step(STEP.negated()); // the database host's clock is corrected
      // Due after the instance's next sample (10 s after start): queued again on the wrong clock,
      // it would come due only a minute after the clock was corrected.
      Instant at = storeClock.now().plus(Kairos.CLUSTER_CLOCK_RESAMPLE).plusSeconds(2);
      s.schedule(JobSpec.named("soon").handler("h").at(at));

      assertThat(ran.await(12 + BOUND_SECONDS, TimeUnit.SECONDS))
          .as("the fire runs at its time by the store's clock, not a minute later")
          .isTrue();
      assertThat(ranAt.get()).isAfterOrEqualTo(at).isBefore(at.plusSeconds(BOUND_SECONDS / 2));
    }
  }
}
