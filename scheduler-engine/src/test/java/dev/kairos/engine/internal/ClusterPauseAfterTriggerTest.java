package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The promise of {@code pause()} in cluster mode, with a trigger in flight: two instances A and B
 * share one {@link InMemoryStore#shared store} and one {@link ManualClock}, driven by the step API
 * (no worker or cluster threads). While job J runs on A, {@code triggerNow(J)} is called on A and
 * then {@code pause(J)} on B. Once the pause has returned, no run of J starts on either instance,
 * however far the clock moves and however often both apply the change feed; both report J PAUSED;
 * after {@code resume(J)} it runs again, once per fire, and the trigger the pause cancelled is not
 * replayed.
 *
 * <p>A's run happens on a thread of the test's own, held inside the handler by a latch, so the
 * trigger and the pause are made from another thread while the run is really in progress (the row
 * RUNNING and claimed by A, A's entry running). Every wait is on a latch or a join, with a timeout
 * that only guards against a hang.
 */
class ClusterPauseAfterTriggerTest {
  private static final Instant T0 = Harness.T0;
  private static final Duration PERIOD = Duration.ofMinutes(1);
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final String J = "j";

  /** One run: the instance it ran on and its scheduled fire. */
  private record Run(String instance, Instant fire) {}

  private final ManualClock clock = new ManualClock(T0);
  private final InMemoryStore store = InMemoryStore.shared(clock);
  private final List<Run> runs = new CopyOnWriteArrayList<>();
  private final CountDownLatch firstRunStarted = new CountDownLatch(1);
  private final CountDownLatch releaseFirstRun = new CountDownLatch(1);
  private KairosScheduler a;
  private KairosScheduler b;

  private KairosScheduler instance(String id) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .clock(clock)
                .instanceId(id)
                .clusterLease(LEASE)
                .handler("h", ctx -> run(id, ctx)));
    s.open();
    return s;
  }

  /** Records the run; the very first one waits inside the handler until the test releases it. */
  private void run(String id, JobContext ctx) throws InterruptedException {
    runs.add(new Run(id, ctx.scheduledFireTime()));
    if (runs.size() == 1) {
      firstRunStarted.countDown();
      assertThat(releaseFirstRun.await(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @BeforeEach
  void twoInstances() {
    a = instance("a");
    b = instance("b");
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  /**
   * @param bSyncsBeforePause whether B has applied the feed (and so queued A's trigger) before its
   *     pause
   * @param aSyncsDuringRun whether A applies the feed (and so sees B's pause) before its run ends
   */
  @ParameterizedTest(name = "B syncs before pause: {0}, A syncs during its run: {1}")
  @CsvSource({"false, false", "true, false", "false, true", "true, true"})
  void triggerOnA_thenPauseOnB_duringARunOnA_noRunAfterThePause_untilResumed(
      boolean bSyncsBeforePause, boolean aSyncsDuringRun) throws Exception {
    a.schedule(JobSpec.named(J).handler("h").fixedRate(PERIOD).startAt(T0));
    b.syncCluster();

    // J's fire at T0 runs on A, on a thread of its own, and is held inside the handler.
    AtomicReference<Throwable> runnerFailed = new AtomicReference<>();
    Thread runner =
        new Thread(
            () -> {
              try {
                a.runDue();
              } catch (Throwable t) {
                runnerFailed.set(t);
              }
            },
            "runner-a");
    runner.start();
    assertThat(firstRunStarted.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(runs).containsExactly(new Run("a", T0));
    assertThat(store.find(J).orElseThrow().state()).isEqualTo(JobState.RUNNING);

    // During the run: a trigger on A, then a pause on B.
    assertThat(a.triggerNow(J)).isTrue();
    if (bSyncsBeforePause) {
      b.syncCluster();
      b.runDue(); // the trigger's fire is A's (A holds the lease): B must not run it
      assertThat(runs).hasSize(1);
    }
    assertThat(b.pause(J)).isTrue();
    // From here on, no run of J may start anywhere.
    int runsAtPause = runs.size();
    if (aSyncsDuringRun) {
      a.syncCluster();
    }

    releaseFirstRun.countDown();
    runner.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(runner.isAlive()).isFalse();
    assertThat(runnerFailed.get()).isNull();

    assertThat(a.job(J).orElseThrow().state()).isEqualTo(JobState.PAUSED);
    assertThat(b.job(J).orElseThrow().state()).isEqualTo(JobState.PAUSED);

    // Ten periods and several leases later, both having applied every change: still no run.
    for (int i = 0; i < 10; i++) {
      clock.advance(PERIOD);
      a.syncCluster();
      b.syncCluster();
      a.runDue();
      b.runDue();
    }
    assertThat(runs).hasSize(runsAtPause).containsExactly(new Run("a", T0));
    assertThat(store.expiredClaims(10)).isEmpty(); // nothing left for a lease recovery to run
    assertThat(a.job(J).orElseThrow().state()).isEqualTo(JobState.PAUSED);
    assertThat(b.job(J).orElseThrow().state()).isEqualTo(JobState.PAUSED);
    assertThat(store.find(J).orElseThrow().dueTime()).isNull(); // the trigger is gone too

    // Resumed (through A): it runs again, each fire once, and never the cancelled trigger's fire.
    Instant resumedAt = clock.now();
    assertThat(a.resume(J)).isTrue();
    assertThat(a.job(J).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    assertThat(b.job(J).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    for (int i = 0; i < 3; i++) {
      a.syncCluster();
      b.syncCluster();
      a.runDue();
      b.runDue();
      a.syncCluster();
      b.syncCluster();
      clock.advance(PERIOD);
    }
    List<Run> after = runs.subList(runsAtPause, runs.size());
    assertThat(after).isNotEmpty();
    assertThat(after).extracting(Run::fire).doesNotHaveDuplicates().allMatch(t -> t.isAfter(T0));
    assertThat(after)
        .extracting(Run::fire)
        .allMatch(t -> !t.isAfter(resumedAt.plus(PERIOD.multipliedBy(3))));
  }
}
