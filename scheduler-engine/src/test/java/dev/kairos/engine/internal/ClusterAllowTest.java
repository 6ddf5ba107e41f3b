package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Overlap;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Overlap#allow(int)} across a cluster, in real time over the shared in-memory store: three
 * instances, one job every 20 ms whose runs take 30 to 80 ms, so its runs overlap all the time. The
 * bound holds for the whole cluster (the store counts the runs), every fire runs at most once (the
 * start is the claim), and runs go on on more than one instance.
 */
class ClusterAllowTest {
  private final InMemoryStore store = InMemoryStore.shared(dev.kairos.engine.TimeSource.system());
  private final List<KairosScheduler> instances = new ArrayList<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final Map<Instant, AtomicInteger> runsOfFire = new ConcurrentHashMap<>();
  private final Set<String> ranOn = ConcurrentHashMap.newKeySet();

  private KairosScheduler instance(String id) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .instanceId(id)
                .workers(1) // the preferred instance runs one at a time: the others must help
                .clusterLease(Duration.ofSeconds(2))
                .clusterPoll(Duration.ofMillis(20))
                .handler(
                    "h",
                    ctx -> {
                      maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                      try {
                        runsOfFire
                            .computeIfAbsent(ctx.scheduledFireTime(), f -> new AtomicInteger())
                            .incrementAndGet();
                        ranOn.add(id);
                        LockSupport.parkNanos(
                            ThreadLocalRandom.current().nextLong(400_000_000, 600_000_000));
                      } finally {
                        running.decrementAndGet();
                      }
                    }));
    instances.add(s);
    return s;
  }

  @AfterEach
  void closeAll() {
    instances.forEach(KairosScheduler::close);
  }

  @Test
  void threeInstances_allowThree_neverMoreInAll_eachFireAtMostOnce() {
    for (String id : List.of("a", "b", "c")) {
      instance(id).start();
    }
    instances
        .get(0)
        .schedule(
            JobSpec.named("j")
                .handler("h")
                .fixedRate(Duration.ofMillis(20))
                .overlap(Overlap.allow(3)));

    await().atMost(Duration.ofSeconds(60)).until(() -> runsOfFire.size() >= 12);
    instances.forEach(KairosScheduler::close);

    assertThat(maxRunning.get()).isBetween(2, 3); // overlapping, across instances, never beyond
    assertThat(runsOfFire.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(store.backfillSlots("j")).as("no run left recorded after close").isEmpty();
    assertThat(ranOn).hasSizeGreaterThan(1);
  }
}
