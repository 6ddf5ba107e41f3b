package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Cluster mode, an instance whose clock runs ahead of the store's (a skew, or an offset sampled
 * while the database restarted: the long soak of stop 21 ran coalesced fires up to 0.9 s early this
 * way): a job behind by several fires under {@code fireOnce()} coalesces them into the latest one
 * that is due by the store's clock, never into one that is due only by the instance's. The claim
 * checks the job's due time (its oldest missed fire) against the store's clock; the fire the
 * misfire rule picks on the instance's clock is checked against the claim's time too.
 */
class ClusterClockAheadMisfireTest {
  private static final Instant T0 = Harness.T0;

  @Test
  void fireOnce_clockAheadOfTheStore_runsTheLatestFireDueByTheStoresClock() {
    ManualClock storeClock = new ManualClock(T0);
    ManualClock instanceClock = new ManualClock(T0.plusMillis(600)); // 600 ms ahead
    InMemoryStore store = InMemoryStore.shared(storeClock);
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .clock(instanceClock)
                .instanceId("ahead")
                .handler("h", runs::add));
    try {
      s.open();
      s.schedule(
          JobSpec.named("j")
              .handler("h")
              .fixedRate(Duration.ofSeconds(1))
              .startAt(T0.plusSeconds(1))
              .misfire(Misfire.fireOnce()));
      // 3.5 s later by the store: fires 1 s, 2 s and 3 s are due by the store's clock; the
      // instance, 600 ms ahead, also sees the fire of 4 s as due.
      storeClock.advance(Duration.ofMillis(3_500));
      instanceClock.advance(Duration.ofMillis(3_500));

      s.runDue();

      assertThat(runs).hasSize(1);
      JobContext run = runs.get(0);
      assertThat(run.scheduledFireTime()).isEqualTo(T0.plusSeconds(3));
      assertThat(run.actualStart()).isAfterOrEqualTo(run.scheduledFireTime());
      assertThat(run.missedFires())
          .as("fires the run stands for, by the store's clock")
          .isEqualTo(3);
    } finally {
      s.close();
    }
  }
}
