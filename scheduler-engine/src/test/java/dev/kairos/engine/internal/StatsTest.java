package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.SchedulerStats;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code Scheduler.stats()} counts queued and running jobs from the engine's memory (jobs due
 * within the look-ahead window are queued).
 */
class StatsTest {

  @Test
  void stats_countQueuedAndRunningJobs() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .clock(clock)
                .workers(3)
                .gracePeriod(Duration.ofSeconds(5))
                .handler(
                    "block",
                    ctx -> {
                      started.countDown();
                      release.await();
                    })
                .handler("idle", ctx -> {}));
    try {
      s.start();
      assertThat(s.stats()).isEqualTo(new SchedulerStats(0, 0, 3, true));

      s.schedule(
          JobSpec.named("later")
              .handler("idle")
              .fixedRate(Duration.ofMinutes(2))
              .initialDelay(Duration.ofMinutes(1)));
      s.schedule(JobSpec.named("now").handler("block").fixedRate(Duration.ofMinutes(2)));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

      SchedulerStats busy = s.stats();
      assertThat(busy.runningJobs()).isEqualTo(1);
      assertThat(busy.queuedJobs()).isEqualTo(1);
      assertThat(busy.idleWorkers()).isEqualTo(2);
      assertThat(busy.storeAvailable()).isTrue();

      release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> s.stats().runningJobs() == 0);
      assertThat(s.stats().queuedJobs()).isEqualTo(2);
    } finally {
      release.countDown();
      s.close();
    }
  }
}
