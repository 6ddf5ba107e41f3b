package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Overlap;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The replacer's promise: a run is interrupted only while it is watched, and an interrupt never
 * reaches a worker after its watch has ended (when it may be running another job's fire).
 */
class RunReplacerTest {
  private final List<RunReplacer> replacers = new ArrayList<>();

  @AfterEach
  void stop() {
    replacers.forEach(RunReplacer::stop);
  }

  private RunReplacer replacer(TimeSource time) {
    RunReplacer r = new RunReplacer(time, "test");
    replacers.add(r);
    return r;
  }

  @Test
  void interruptsAtTheDeadline_notBefore_andEndReportsIt() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-01-05T00:00:00Z"));
    RunReplacer r = replacer(clock);
    RunReplacer.Watch w = r.watch("j", clock.now().plusSeconds(10), clock.now().plusSeconds(10));

    clock.advance(Duration.ofSeconds(9));
    Thread.sleep(50); // the replacer thread had its chance; the deadline is not reached
    assertThat(Thread.currentThread().isInterrupted()).isFalse();

    clock.advance(Duration.ofSeconds(1));
    Thread me = Thread.currentThread(); // Awaitility polls on a thread of its own
    await().atMost(Duration.ofSeconds(10)).until(me::isInterrupted);
    assertThat(r.end(w)).isTrue();
    assertThat(Thread.interrupted()).isTrue();
  }

  @Test
  void endedBeforeTheDeadline_neverInterrupted() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-01-05T00:00:00Z"));
    RunReplacer r = replacer(clock);
    RunReplacer.Watch w = r.watch("j", clock.now().plusSeconds(1), clock.now().plusSeconds(1));
    RunReplacer.Watch later =
        r.watch("k", clock.now().plusSeconds(5), clock.now().plusSeconds(5)); // keeps it busy

    assertThat(r.end(w)).isFalse();
    clock.advance(Duration.ofSeconds(2));
    Thread.sleep(50);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
    assertThat(r.end(later)).isFalse();
  }

  /**
   * Many watches whose deadline is now, each ended at once: the interrupt and the end race every
   * time. An interrupt is seen only when {@code end} says the run was cut, and none arrives after.
   */
  @Test
  void stress_interruptAndEndRace_noInterruptOutsideAWatch() throws Exception {
    RunReplacer r = replacer(TimeSource.system());
    int threads = 4;
    int iterations = 20_000;
    AtomicInteger cut = new AtomicInteger();
    AtomicInteger violations = new AtomicInteger();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                for (int i = 0; i < iterations; i++) {
                  if (Thread.currentThread().isInterrupted()) {
                    violations.incrementAndGet(); // arrived after the previous end
                    Thread.interrupted();
                  }
                  Instant now = Instant.now();
                  RunReplacer.Watch watch = r.watch("j", now, now);
                  if ((i & 7) == 0) {
                    Thread.onSpinWait();
                  }
                  boolean wasCut = r.end(watch);
                  boolean flag = Thread.interrupted();
                  if (flag && !wasCut) {
                    violations.incrementAndGet();
                  }
                  if (wasCut) {
                    cut.incrementAndGet();
                  }
                }
              });
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join(Duration.ofMinutes(2).toMillis());
      assertThat(w.isAlive()).isFalse();
    }
    assertThat(violations).hasValue(0);
    assertThat(cut.get()).as("watches interrupted (the race ran both ways)").isPositive();
  }

  /**
   * Replace jobs overrunning at random beside jobs of the default policy, on shared workers: no run
   * of a forbid job starts with its interrupt flag set or is ever interrupted.
   */
  @Test
  void stress_replaceJobsBesideOthers_interruptsReachOnlyReplacedRuns() {
    AtomicInteger leaks = new AtomicInteger();
    AtomicInteger replaced = new AtomicInteger();
    AtomicInteger otherRuns = new AtomicInteger();
    SchedulerListener listener =
        new SchedulerListener() {
          @Override
          public void runFailed(JobContext ctx, Throwable error, boolean willRetry) {
            if (error instanceof FireRunner.ReplacedException) {
              replaced.incrementAndGet();
            }
          }
        };
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .workers(4)
                .listener(listener)
                .handler(
                    "replace",
                    // May start with its flag set: its next fire can come due between the run's
                    // start and the handler's first line. Interrupts of other runs show below.
                    ctx -> Thread.sleep(ThreadLocalRandom.current().nextInt(0, 30)))
                .handler(
                    "other",
                    ctx -> {
                      if (Thread.currentThread().isInterrupted()) {
                        leaks.incrementAndGet();
                      }
                      try {
                        Thread.sleep(ThreadLocalRandom.current().nextInt(0, 3));
                      } catch (InterruptedException e) {
                        leaks.incrementAndGet();
                      }
                      otherRuns.incrementAndGet();
                    }));
    try {
      s.start();
      for (int i = 0; i < 8; i++) {
        s.schedule(
            JobSpec.named("r" + i)
                .handler("replace")
                .fixedRate(Duration.ofMillis(15))
                .overlap(Overlap.replace()));
        s.schedule(JobSpec.named("o" + i).handler("other").fixedRate(Duration.ofMillis(10)));
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> replaced.get() >= 100 && otherRuns.get() >= 1_000);
    } finally {
      s.close();
    }
    assertThat(leaks).hasValue(0);
  }
}
