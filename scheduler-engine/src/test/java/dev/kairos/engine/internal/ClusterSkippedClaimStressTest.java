package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Claim batches that skip rows, under load: three instances, four workers each, whose claim batches
 * answer a quarter of their fires "not claimed" at random without claiming them (as the JDBC store
 * does for a row another transaction holds), and whose lone claims wait up to 5 ms first (the
 * lock). 500 one-shots due at once and 12 jobs every 20 ms. Every skipped fire is retried alone; no
 * fire may run twice, no job overlap itself, and every one-shot runs exactly once. Real time,
 * generous bounds.
 */
class ClusterSkippedClaimStressTest {
  private static final int ONE_SHOTS = 500;
  private static final int PERIODIC = 12;

  private final InMemoryStore shared = InMemoryStore.shared(TimeSource.system());
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final AtomicInteger skipped = new AtomicInteger();
  private final AtomicInteger alone = new AtomicInteger();

  /** The shared store, batching runs, with batches that skip rows and lone claims that wait. */
  private final class SkippingStore extends BatchingClusterStore {
    SkippingStore() {
      super(shared);
    }

    @Override
    public List<Optional<Claimed>> claimAll(
        List<JobRecord> expected, String instance, Duration lease) {
      List<JobRecord> locked = new ArrayList<>();
      boolean[] skip = new boolean[expected.size()];
      for (int i = 0; i < expected.size(); i++) {
        skip[i] = ThreadLocalRandom.current().nextInt(4) == 0;
        if (skip[i]) {
          skipped.incrementAndGet();
        } else {
          locked.add(expected.get(i));
        }
      }
      List<Optional<Claimed>> claimed = super.claimAll(locked, instance, lease);
      List<Optional<Claimed>> out = new ArrayList<>(expected.size());
      int next = 0;
      for (int i = 0; i < expected.size(); i++) {
        out.add(skip[i] ? Optional.empty() : claimed.get(next++));
      }
      return out;
    }

    @Override
    public Optional<Claimed> claim(JobRecord expected, String instance, Duration lease) {
      alone.incrementAndGet();
      LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(5_000_000L));
      return super.claim(expected, instance, lease);
    }
  }

  @AfterEach
  void closeAll() {
    schedulers.forEach(Scheduler::close);
  }

  @Test
  void everyFireOnce_noOverlap_noOneShotLost() {
    FireLedger ledger = new FireLedger();
    ledger.startCluster(
        3,
        SkippingStore::new,
        b ->
            b.clusterPoll(Duration.ofMillis(20))
                .clusterLease(Duration.ofSeconds(3)), // instances see each other within a second
        schedulers);
    Instant now = Instant.now().plusMillis(200);
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < ONE_SHOTS; i++) {
      specs.add(JobSpec.named("once-" + i).handler("h").at(now));
    }
    for (int i = 0; i < PERIODIC; i++) {
      specs.add(
          JobSpec.named("every-" + i).handler("h").fixedRate(Duration.ofMillis(20)).startAt(now));
    }
    schedulers.get(0).scheduleAll(specs);

    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> ledger.jobsRun("once-") == ONE_SHOTS && ledger.runs("every-0") >= 100);
    schedulers.forEach(Scheduler::close);

    assertThat(skipped.get()).as("fires the batches skipped").isPositive();
    assertThat(alone.get()).as("lone claims").isPositive();
    ledger.assertEveryFireOnce("once-", ONE_SHOTS);
  }
}
