package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.RepeatedTest;

/**
 * {@link Overlap#allow(int)} under load: six workers, two jobs under {@code allow(3)} whose runs
 * take 0 to 3 ms of real time, a manual clock moved a second at a time by the test thread, 150
 * fires each under {@code catchUp()}. Every fire runs exactly once (no double start, no lost fire),
 * never more than three runs of a job at once, and after the last move of the clock the fires still
 * waiting for a run to end all start: a lost wake-up would leave one waiting for a clock that no
 * longer moves.
 */
class AllowStressTest {
  private static final int FIRES = 150;

  @RepeatedTest(5)
  void twoJobsAllowThree_everyFireOnce_neverMoreThanThree_noLostWakeUp() {
    ManualClock clock = new ManualClock(Harness.T0);
    Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> max = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> runsOfFire = new ConcurrentHashMap<>();
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .clock(clock)
                .workers(6)
                .handler(
                    "h",
                    ctx -> {
                      int now =
                          running
                              .computeIfAbsent(ctx.key(), k -> new AtomicInteger())
                              .incrementAndGet();
                      max.computeIfAbsent(ctx.key(), k -> new AtomicInteger())
                          .accumulateAndGet(now, Math::max);
                      runsOfFire
                          .computeIfAbsent(
                              ctx.key() + "@" + ctx.scheduledFireTime(), k -> new AtomicInteger())
                          .incrementAndGet();
                      LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(3_000_000));
                      running.get(ctx.key()).decrementAndGet();
                    }));
    try {
      s.start();
      for (String key : new String[] {"a", "b"}) {
        s.schedule(
            JobSpec.named(key)
                .handler("h")
                .fixedRate(Duration.ofMillis(100))
                .misfire(Misfire.catchUp())
                .overlap(Overlap.allow(3)));
      }
      for (int i = 0; i < FIRES / 10; i++) {
        clock.advance(Duration.ofSeconds(1)); // ten fires of each job come due at once
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
      }
      clock.advance(Duration.ofMillis(1)); // the last fire, at T0 + 15 s, is due: nothing after
      await().atMost(Duration.ofSeconds(60)).until(() -> runsOfFire.size() == 2 * (FIRES + 1));
      await().atMost(Duration.ofSeconds(20)).until(() -> s.stats().runningJobs() == 0);
    } finally {
      s.close();
    }
    assertThat(runsOfFire.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    for (String key : new String[] {"a", "b"}) {
      for (int i = 0; i <= FIRES; i++) {
        Instant fire = Harness.T0.plusMillis(100L * i);
        assertThat(runsOfFire).containsKey(key + "@" + fire);
      }
      assertThat(max.get(key).get()).isBetween(2, 3); // overlapping, never beyond the bound
    }
  }
}
