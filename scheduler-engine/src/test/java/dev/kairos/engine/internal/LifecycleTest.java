package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.RunOutcome;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** start, close and threads, with real workers. */
class LifecycleTest {
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final ThreadFactory factory =
      r -> {
        Thread t = new Thread(r, "test-worker-" + threads.size());
        threads.add(t);
        return t;
      };

  @Test
  void close_interruptsJobsAfterGrace_andLeavesNoThreadBehind() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    InMemoryStore store = new InMemoryStore();
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .workers(3)
                .threadFactory(factory)
                .gracePeriod(Duration.ofMillis(200))
                .handler(
                    "h",
                    ctx -> {
                      started.countDown();
                      try {
                        new CountDownLatch(1).await(); // blocks until interrupted
                      } catch (InterruptedException e) {
                        interrupted.set(true);
                        throw e;
                      }
                    }));
    s.start();
    s.schedule(JobSpec.named("long").handler("h").fixedRate(Duration.ofHours(1)));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

    s.close();

    assertThat(interrupted).isTrue();
    assertThat(threads).hasSize(3).noneMatch(Thread::isAlive);
    assertThat(store.history("long", 1))
        .extracting(r -> r.outcome())
        .containsExactly(RunOutcome.INTERRUPTED);
    // Interrupted by shutdown: the fire stays due, to run again at the next start.
    assertThat(store.find("long").orElseThrow().dueTime()).isNotNull();
  }

  @Test
  void close_letsARunningJobFinishWithinGrace() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger finished = new AtomicInteger();
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .threadFactory(factory)
                .gracePeriod(Duration.ofSeconds(30))
                .handler(
                    "h",
                    ctx -> {
                      started.countDown();
                      release.await();
                      finished.incrementAndGet();
                    }));
    s.start();
    s.schedule(JobSpec.named("j").handler("h").fixedRate(Duration.ofHours(1)));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(s::close);
    closer.start();
    release.countDown();
    closer.join(20_000);

    assertThat(closer.isAlive()).isFalse();
    assertThat(finished.get()).isEqualTo(1);
    assertThat(threads).noneMatch(Thread::isAlive);
  }

  @Test
  void close_isIdempotent_andRejectsLaterChanges() {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .threadFactory(factory)
                .handler("h", ctx -> {}));
    s.start();
    s.close();
    s.close();

    assertThat(threads).noneMatch(Thread::isAlive);
    assertThatThrownBy(
            () -> s.schedule(JobSpec.named("j").handler("h").fixedRate(Duration.ofSeconds(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void manualClock_advanceWakesTheWorkers() {
    ManualClock clock = new ManualClock(Harness.T0);
    AtomicInteger runs = new AtomicInteger();
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .clock(clock)
                .workers(4)
                .threadFactory(factory)
                .handler("h", ctx -> runs.incrementAndGet()));
    try {
      s.start();
      s.schedule(JobSpec.named("j").handler("h").fixedRate(Duration.ofMinutes(1)));
      await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 1);

      for (int i = 2; i <= 20; i++) {
        clock.advance(Duration.ofMinutes(1));
        int expected = i;
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == expected);
      }
    } finally {
      s.close();
    }
    assertThat(runs.get()).isEqualTo(20);
    assertThat(s.maxTimedWaiters()).isLessThanOrEqualTo(1);
  }

  @Test
  void unscheduleWhileRunning_runFinishesAndIsNotRequeued() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    ManualClock clock = new ManualClock(Harness.T0);
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .clock(clock)
                .threadFactory(factory)
                .handler(
                    "h",
                    ctx -> {
                      runs.incrementAndGet();
                      started.countDown();
                      release.await();
                    }));
    try {
      s.start();
      s.schedule(JobSpec.named("j").handler("h").fixedRate(Duration.ofSeconds(1)));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(s.unschedule("j")).isTrue();
      release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> s.queued() == 0 && idle(s));
      clock.advance(Duration.ofSeconds(10));
      assertThat(s.job("j")).isEmpty();
    } finally {
      s.close();
    }
    assertThat(runs.get()).isEqualTo(1);
  }

  private static boolean idle(KairosScheduler s) {
    return s.runningKeys().isEmpty();
  }
}
