package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.ClusterStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A handler for the cluster stress tests: counts the runs of each fire (key and scheduled time) and
 * of each job, on whichever instance, and the runs of one job that overlapped.
 */
final class FireLedger implements Job {
  private final Map<String, AtomicInteger> byFire = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> byKey = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final AtomicInteger overlaps = new AtomicInteger();

  @Override
  public void run(JobContext ctx) {
    AtomicInteger mine = inFlight.computeIfAbsent(ctx.key(), k -> new AtomicInteger());
    if (mine.incrementAndGet() > 1) {
      overlaps.incrementAndGet();
    }
    byFire
        .computeIfAbsent(ctx.key() + "@" + ctx.scheduledFireTime(), k -> new AtomicInteger())
        .incrementAndGet();
    byKey.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
    mine.decrementAndGet();
  }

  /** Runs of the job {@code key} so far. */
  int runs(String key) {
    AtomicInteger n = byKey.get(key);
    return n == null ? 0 : n.get();
  }

  /** How many jobs whose key starts with {@code prefix} have run at least once. */
  long jobsRun(String prefix) {
    return byKey.keySet().stream().filter(k -> k.startsWith(prefix)).count();
  }

  /** Runs that began while another run of the same job was going. */
  int overlaps() {
    return overlaps.get();
  }

  /** The fires (key@time) that ran more than once. */
  List<String> firesRunTwice() {
    return byFire.entrySet().stream()
        .filter(e -> e.getValue().get() > 1)
        .map(Map.Entry::getKey)
        .toList();
  }

  /**
   * Builds and starts {@code n} instances ({@code s0}, {@code s1}, ...) of four workers, each over
   * a store from {@code store} and with this ledger as handler {@code h}, changed by {@code tweak};
   * adds them to {@code into} (to be closed however the test ends) and waits until each sees all
   * {@code n} alive.
   */
  void startCluster(
      int n,
      Supplier<ClusterStore> store,
      UnaryOperator<Kairos.Builder> tweak,
      List<Scheduler> into) {
    List<Scheduler> started = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      started.add(
          tweak
              .apply(Kairos.builder().store(store.get()).instanceId("s" + i).workers(4))
              .handler("h", this)
              .build());
    }
    into.addAll(started);
    started.forEach(Scheduler::start);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> started.stream().allMatch(s -> s.stats().liveInstances() == n));
  }

  /**
   * Asserts that no run overlapped another of its job, that no fire ran twice, and that each job
   * {@code prefix + i} for {@code i} below {@code count} ran exactly once.
   */
  void assertEveryFireOnce(String prefix, int count) {
    assertThat(overlaps()).as("runs of one job that overlapped").isZero();
    assertThat(firesRunTwice()).as("fires that ran twice").isEmpty();
    for (int i = 0; i < count; i++) {
      assertThat(runs(prefix + i)).as("runs of %s%d", prefix, i).isEqualTo(1);
    }
  }
}
