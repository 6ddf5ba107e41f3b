package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * Stress tests of the leader–follower protocol with real threads and the system clock. Seen to fail
 * with the follower hand-off in {@code Dispatcher.take()} removed (fires stall: lost wake-up).
 */
class DispatcherStressTest {

  /**
   * 8 workers, 100,000 one-shot jobs due at random times within 2 s: each runs exactly once, none
   * before its time, and never more than one worker waits timed.
   */
  @Test
  void manyOneShots_eachRunsExactlyOnce_noneEarly_oneTimedWaiterAtMost() throws Exception {
    int jobs = 100_000;
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>(jobs * 2);
    LongAdder early = new LongAdder();
    CountDownLatch all = new CountDownLatch(jobs);
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore(0, true))
                .workers(8)
                .handler(
                    "h",
                    ctx -> {
                      if (ctx.actualStart().isBefore(ctx.scheduledFireTime())) {
                        early.increment();
                      }
                      runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
                      all.countDown();
                    }));
    try {
      s.start();
      Random random = new Random(7);
      Instant base = Instant.now().plusMillis(200);
      for (int i = 0; i < jobs; i++) {
        s.schedule(JobSpec.named("j" + i).handler("h").at(base.plusMillis(random.nextInt(2000))));
      }
      assertThat(all.await(120, TimeUnit.SECONDS)).as("all fires ran").isTrue();
    } finally {
      s.close();
    }
    assertThat(runs).hasSize(jobs);
    assertThat(runs.values()).allMatch(n -> n.get() == 1);
    assertThat(early.sum()).isZero();
    assertThat(s.maxTimedWaiters()).isEqualTo(1);
  }

  /**
   * While a worker is held by a running job, another worker must become leader and fire the next
   * job on time: each round's first job blocks until the second has run. Without the hand-off to a
   * follower the second job is never fired (a lost wake-up) and the round times out.
   */
  @Test
  void workerBusyWithAJob_followerTakesOverAsLeader_everyRound() throws Exception {
    int rounds = 300;
    AtomicInteger completed = new AtomicInteger();
    Map<Integer, CountDownLatch> released = new ConcurrentHashMap<>();
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore(0, false))
                .workers(4)
                .handler(
                    "blocker",
                    ctx -> {
                      int round = Integer.parseInt(ctx.data().orElseThrow());
                      if (!released.get(round).await(10, TimeUnit.SECONDS)) {
                        throw new AssertionError(
                            "round " + round + ": the releasing job never ran");
                      }
                      completed.incrementAndGet();
                    })
                .handler(
                    "releaser",
                    ctx -> released.get(Integer.parseInt(ctx.data().orElseThrow())).countDown()));
    try {
      s.start();
      for (int round = 0; round < rounds; round++) {
        released.put(round, new CountDownLatch(1));
        Instant t = Instant.now();
        // Three blockers hold three of the four workers; the fourth must lead and fire the
        // releaser.
        for (int b = 0; b < 3; b++) {
          s.schedule(
              JobSpec.named("b" + round + "-" + b)
                  .handler("blocker")
                  .data("" + round)
                  .at(t.plusMillis(1)));
        }
        s.schedule(
            JobSpec.named("r" + round).handler("releaser").data("" + round).at(t.plusMillis(3)));
        int expected = (round + 1) * 3;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (completed.get() < expected && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertThat(completed.get()).as("round %d completed", round).isEqualTo(expected);
      }
    } finally {
      s.close();
    }
    assertThat(s.maxTimedWaiters()).isEqualTo(1);
  }

  /** Fixed-rate jobs that overrun their period never run concurrently with themselves. */
  @Test
  void overrunningFixedRateJobs_neverOverlapThemselves() throws Exception {
    int jobs = 16;
    int runsPerJob = 40;
    Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(jobs * runsPerJob);
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .workers(8)
                .handler(
                    "h",
                    ctx -> {
                      AtomicInteger n =
                          inFlight.computeIfAbsent(ctx.key(), k -> new AtomicInteger());
                      if (n.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                      }
                      Thread.onSpinWait();
                      long spin = System.nanoTime() + 1_500_000; // 1.5 ms of work on a 1 ms period
                      while (System.nanoTime() < spin) {
                        Thread.onSpinWait();
                      }
                      n.decrementAndGet();
                      done.countDown();
                    }));
    try {
      s.start();
      for (int i = 0; i < jobs; i++) {
        s.schedule(
            JobSpec.named("r" + i)
                .handler("h")
                .fixedRate(Duration.ofMillis(1)) // the shortest period
                .misfire(dev.kairos.Misfire.catchUp()));
      }
      assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
    } finally {
      s.close();
    }
    assertThat(overlaps.get()).isZero();
  }
}
