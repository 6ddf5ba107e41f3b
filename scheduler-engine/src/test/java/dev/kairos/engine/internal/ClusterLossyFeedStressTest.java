package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The overdue sweep under load, with feeds that lose changes: three instances, four workers each,
 * 500 one-shots due at once, 100 more whose every change the feeds drop ({@code lost-*}: only the
 * sweep can queue them), and 12 jobs every 20 ms; of all other changes the feeds drop a third at
 * random. All are scheduled through a fourth instance that never starts, so the three learn of
 * every job through their feeds (or the sweep) alone, while the jobs are claimed, run and written
 * back on the others. The sweep must neither run a fire twice nor let a job overlap itself, and
 * every one-shot runs exactly once. Real time, generous bounds.
 */
class ClusterLossyFeedStressTest {
  private static final int ONE_SHOTS = 500;
  private static final int LOST = 100;
  private static final int PERIODIC = 12;

  private final InMemoryStore shared = InMemoryStore.shared(TimeSource.system());
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final AtomicInteger dropped = new AtomicInteger();

  @AfterEach
  void closeAll() {
    schedulers.forEach(Scheduler::close);
  }

  /**
   * The shared store, with a feed that drops every change of a {@code lost-*} job and each other
   * change with probability 1/3.
   */
  private ClusterStore lossyFeed() {
    return StoreInterceptor.wrap(
        shared,
        (method, out) -> {
          if (!method.equals("changesSince")) {
            return out;
          }
          ClusterStore.Changes c = (ClusterStore.Changes) out;
          List<JobRecord> kept = new ArrayList<>();
          for (JobRecord r : c.changed()) {
            if (r.key().startsWith("lost-") || ThreadLocalRandom.current().nextInt(3) == 0) {
              dropped.incrementAndGet();
            } else {
              kept.add(r);
            }
          }
          return new ClusterStore.Changes(kept, c.deleted(), c.cursor());
        });
  }

  @Test
  void everyFireOnce_noOverlap_noOneShotLost() {
    FireLedger ledger = new FireLedger();
    ledger.startCluster(
        3,
        this::lossyFeed,
        b -> b.clusterLease(Duration.ofSeconds(3)), // a sweep every half second
        schedulers);
    Instant now = Instant.now();
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < ONE_SHOTS; i++) {
      specs.add(JobSpec.named("once-" + i).handler("h").at(now));
    }
    for (int i = 0; i < LOST; i++) {
      specs.add(JobSpec.named("lost-" + i).handler("h").at(now));
    }
    for (int i = 0; i < PERIODIC; i++) {
      specs.add(JobSpec.named("every-" + i).handler("h").fixedRate(Duration.ofMillis(20)));
    }
    Scheduler outside =
        Kairos.builder()
            .store(shared)
            .instanceId("outside")
            .handler("h", ctx -> {}) // never started: it runs nothing
            .build();
    schedulers.add(outside);
    outside.scheduleAll(specs);

    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                ledger.jobsRun("once-") == ONE_SHOTS
                    && ledger.jobsRun("lost-") == LOST
                    && ledger.runs("every-0") >= 100);
    schedulers.forEach(Scheduler::close);

    assertThat(dropped.get()).as("changes the feeds dropped").isPositive();
    ledger.assertEveryFireOnce("once-", ONE_SHOTS);
    ledger.assertEveryFireOnce("lost-", LOST);
  }
}
