package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A failure the engine does not expect while it decides, runs or writes back a fire (here: the
 * user's {@link TimeSource} throwing) drops the job from memory. Before, it stayed dropped until
 * the next start: a job that silently never fired again. Its row is now read again from the store
 * after a back-off (1 s, doubling per failure in a row), and the job goes on from what the store
 * holds: after a run whose start was marked, the next fire is a recovery, as after a crash; a fire
 * that never started runs as usual. Real time; each wait is a bound, not a sleep.
 */
class EngineFailureReadAgainTest {
  /** One run as the handler saw it. */
  private record Run(Instant fire, boolean recovery) {}

  /**
   * The system clock, which throws once from a worker thread when armed: on the thread's next read
   * after its handler returned ({@link #failAfterHandler}), or while the engine decides a fire
   * ({@link #failWhileDeciding}, each time while {@code always}).
   */
  private static final class FailingClock implements TimeSource {
    final ThreadLocal<Boolean> failAfterHandler = ThreadLocal.withInitial(() -> false);
    volatile boolean failWhileDeciding;
    volatile boolean always;
    final List<Long> failedAtNanos = new CopyOnWriteArrayList<>();

    @Override
    public Instant now() {
      if (failAfterHandler.get()) {
        failAfterHandler.set(false);
        throw fail();
      }
      if (failWhileDeciding && deciding()) {
        failWhileDeciding = always;
        throw fail();
      }
      return TimeSource.system().now();
    }

    private IllegalStateException fail() {
      failedAtNanos.add(System.nanoTime());
      return new IllegalStateException("the test's clock fails");
    }

    private static boolean deciding() {
      return StackWalker.getInstance()
          .walk(s -> s.anyMatch(f -> f.getMethodName().equals("timetableFire")));
    }

    @Override
    public long nanosUntil(Instant deadline) {
      return TimeSource.system().nanosUntil(deadline);
    }
  }

  private final FailingClock clock = new FailingClock();
  private final List<Run> runs = new CopyOnWriteArrayList<>();

  private Scheduler scheduler(Runnable inHandler) {
    Scheduler s =
        Kairos.builder()
            .store(new InMemoryStore())
            .clock(clock)
            .workers(2)
            .handler(
                "h",
                ctx -> {
                  runs.add(new Run(ctx.scheduledFireTime(), ctx.recovery()));
                  inHandler.run();
                })
            .build();
    s.start();
    return s;
  }

  @Test
  void failureAfterTheRun_theJobIsReadAgain_theMarkedFireRunsAgainAsARecovery() {
    AtomicInteger n = new AtomicInteger();
    try (Scheduler s =
        scheduler(
            () -> {
              if (n.incrementAndGet() == 3) {
                clock.failAfterHandler.set(true); // the engine fails right after this run
              }
            })) {
      s.schedule(JobSpec.named("j").handler("h").fixedRate(Duration.ofMillis(200)));
      await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() >= 6);

      assertThat(clock.failedAtNanos).hasSize(1);
      Run failed = runs.get(2);
      // The run's start was marked and its write-back lost: as after a crash, the next fire (the
      // misfire policy's, about 1 s later) is a recovery.
      assertThat(runs.get(3).recovery()).as("the run after the failure is a recovery").isTrue();
      assertThat(runs.get(3).fire()).isAfterOrEqualTo(failed.fire());
      assertThat(runs.subList(4, 6)).extracting(Run::recovery).containsOnly(false);
      assertThat(runs.get(5).fire()).isAfter(failed.fire());
    }
  }

  @Test
  void failureBeforeTheRun_theJobIsReadAgainAfterABackOff_andFiresOnWithoutRecovery() {
    try (Scheduler s = scheduler(() -> {})) {
      s.schedule(JobSpec.named("j").handler("h").fixedRate(Duration.ofMillis(200)));
      await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() >= 2);
      clock.failWhileDeciding = true;
      await().atMost(Duration.ofSeconds(20)).until(() -> clock.failedAtNanos.size() == 1);
      int before = runs.size();

      await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() >= before + 3);
      assertThat(runs).extracting(Run::recovery).containsOnly(false);
      assertThat(runs).extracting(Run::fire).doesNotHaveDuplicates();
      assertThat(s.job("j")).isPresent();
    }
  }

  @Test
  void failureEveryTime_readAgainWithADoublingBackOff() {
    try (Scheduler s = scheduler(() -> {})) {
      s.schedule(JobSpec.named("j").handler("h").fixedRate(Duration.ofMillis(100)));
      await().atMost(Duration.ofSeconds(20)).until(() -> !runs.isEmpty());
      clock.always = true;
      clock.failWhileDeciding = true;
      await().atMost(Duration.ofSeconds(30)).until(() -> clock.failedAtNanos.size() >= 3);

      List<Long> at = clock.failedAtNanos;
      assertThat(Duration.ofNanos(at.get(1) - at.get(0)))
          .as("read again no sooner than 1 s after the first failure")
          .isGreaterThanOrEqualTo(Duration.ofMillis(950));
      assertThat(Duration.ofNanos(at.get(2) - at.get(1)))
          .as("and 2 s after the second")
          .isGreaterThanOrEqualTo(Duration.ofMillis(1950));
      int ran = runs.size();
      clock.always = false; // the next read-again succeeds: the job fires on
      clock.failWhileDeciding = false;
      await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() >= ran + 3);
    }
  }
}
