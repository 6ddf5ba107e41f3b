package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A claim batch may answer "not claimed" at once for a fire whose row another transaction holds
 * (the JDBC store's {@code SKIP LOCKED}: an application's transaction on another instance changed
 * the job and stays open). The engine claims that fire again alone, a claim that waits for the
 * row's lock; meanwhile the other jobs keep firing on the other worker, and once the transaction
 * ends without a change the fire runs at once. Before, the retry went into the next batch, was
 * skipped again, and the entry was dropped as "held by a live lease elsewhere": the fire waited for
 * the overdue sweep. Simulated by a store view that skips the held job's row in batches and keeps
 * its lone claims waiting until the test ends the "transaction".
 */
class ClusterSkippedClaimTest {
  private static final String HELD = "held";
  private static final int OTHERS = 24;

  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicInteger skippedInBatch = new AtomicInteger();
  private final AtomicInteger aloneWhileHeld = new AtomicInteger();
  private final AtomicInteger claimedAlone = new AtomicInteger();
  private KairosScheduler scheduler;

  /** Batches runs (so claims are batched), skips the held row in batches, holds lone claims. */
  private final class HoldingStore extends BatchingClusterStore {
    HoldingStore() {
      super(InMemoryStore.shared(TimeSource.system()));
    }

    @Override
    public List<Optional<Claimed>> claimAll(
        List<JobRecord> expected, String instance, Duration lease) {
      if (released.getCount() == 0) {
        return super.claimAll(expected, instance, lease);
      }
      List<JobRecord> others = expected.stream().filter(r -> !r.key().equals(HELD)).toList();
      List<Optional<Claimed>> claimed = super.claimAll(others, instance, lease);
      List<Optional<Claimed>> out = new ArrayList<>(expected.size());
      int next = 0;
      for (JobRecord r : expected) {
        if (r.key().equals(HELD)) {
          skippedInBatch.incrementAndGet(); // its row is locked: skipped, untouched
          out.add(Optional.empty());
        } else {
          out.add(claimed.get(next++));
        }
      }
      return out;
    }

    @Override
    public Optional<Claimed> claim(JobRecord expected, String instance, Duration lease) {
      if (expected.key().equals(HELD)) {
        if (released.getCount() != 0) {
          aloneWhileHeld.incrementAndGet(); // waits for the lock, as on a database
        }
        try {
          released.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Optional.empty();
        }
        claimedAlone.incrementAndGet();
      }
      return super.claim(expected, instance, lease);
    }
  }

  @AfterEach
  void close() {
    released.countDown();
    if (scheduler != null) {
      scheduler.close();
    }
  }

  @Test
  void fireSkippedInABatch_claimedAgainAlone_runsOnceTheHolderEnds_othersKeepFiring() {
    scheduler =
        Engines.build(
            Kairos.builder()
                .store(new HoldingStore())
                .workers(2)
                .instanceId("a")
                .clusterPoll(Duration.ofMillis(20))
                .handler(
                    "h",
                    ctx -> {
                      runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
                      LockSupport.parkNanos(10_000_000L); // 10 ms of work
                    }));
    scheduler.start();
    // A backlog: 24 jobs of 10 ms every 100 ms on two workers, so due fires are always queued and
    // every claim is a batch of about ten (by the recent run time). The held job comes due once
    // that has settled, in a batch, where its row is skipped.
    Instant first = Instant.now().plusMillis(300);
    Duration period = Duration.ofMillis(100);
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < OTHERS; i++) {
      specs.add(JobSpec.named("job-" + i).handler("h").fixedRate(period).startAt(first));
    }
    specs.add(JobSpec.named(HELD).handler("h").fixedRate(period).startAt(first.plusSeconds(1)));
    scheduler.scheduleAll(specs);

    // The batch skipped the held row once; the retry is a lone claim that waits for the lock, and
    // the job is in no batch again meanwhile (before, the retry went into the next batch, was
    // skipped again, and the fire was dropped: it waited for the overdue sweep).
    await().atMost(Duration.ofSeconds(20)).until(() -> aloneWhileHeld.get() == 1);
    assertThat(skippedInBatch.get()).isEqualTo(1);
    // One worker waits in that claim; the other keeps firing the other jobs.
    int[] before = othersRuns();
    await().atMost(Duration.ofSeconds(30)).until(() -> minGain(before, othersRuns()) >= 3);
    assertThat(aloneWhileHeld.get()).isEqualTo(1);
    assertThat(skippedInBatch.get()).isEqualTo(1);
    assertThat(runs(HELD)).as("the held job never ran while its row was held").isZero();

    long end = System.nanoTime();
    released.countDown(); // the holder rolls back: the lone claim wins
    await().atMost(Duration.ofSeconds(20)).until(() -> runs(HELD) >= 1);
    long ranAfterMillis = (System.nanoTime() - end) / 1_000_000;
    assertThat(claimedAlone.get()).isGreaterThanOrEqualTo(1);
    // At once: not after the overdue sweep (5 s); generous for a loaded machine.
    assertThat(ranAfterMillis).as("ms from the release to the held job's run").isLessThan(3000);
    await().atMost(Duration.ofSeconds(20)).until(() -> runs(HELD) >= 5); // and it keeps firing
  }

  private int runs(String key) {
    AtomicInteger n = runs.get(key);
    return n == null ? 0 : n.get();
  }

  private int[] othersRuns() {
    int[] out = new int[OTHERS];
    for (int i = 0; i < OTHERS; i++) {
      out[i] = runs("job-" + i);
    }
    return out;
  }

  private static int minGain(int[] before, int[] now) {
    int min = Integer.MAX_VALUE;
    for (int i = 0; i < before.length; i++) {
      min = Math.min(min, now[i] - before[i]);
    }
    return min;
  }
}
