package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
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
 * A concurrency limit in cluster mode: three instances over a shared in-memory store, each with 4
 * workers, and a limit of 2 on the handler. The limit counts runs on every instance (the store's
 * {@code claimWithin}), so at most 2 run at once in all, and every fire still runs exactly once.
 */
class ClusterConcurrencyLimitTest {
  private final InMemoryStore store = InMemoryStore.shared(TimeSource.system());
  private final List<KairosScheduler> instances = new ArrayList<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final Set<String> ranOn = ConcurrentHashMap.newKeySet();

  private KairosScheduler instance(String id) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .instanceId(id)
                .workers(1) // one run per instance: two at once needs two instances
                .clusterLease(Duration.ofSeconds(2))
                .clusterPoll(Duration.ofMillis(20))
                .maxConcurrent("h", 2)
                .handler(
                    "h",
                    ctx -> {
                      int now = running.incrementAndGet();
                      maxRunning.accumulateAndGet(now, Math::max);
                      try {
                        runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
                        ranOn.add(id);
                        LockSupport.parkNanos(
                            ThreadLocalRandom.current().nextLong(5_000_000, 30_000_000));
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
  void threeInstances_limitOfTwo_neverMoreThanTwoInAll_everyFireOnce() {
    for (String id : List.of("a", "b", "c")) {
      instance(id).start();
    }
    Instant t0 = Instant.now().plusMillis(300);
    int jobs = 40;
    for (int i = 0; i < jobs; i++) {
      instances.get(i % 3).schedule(JobSpec.named("j" + i).handler("h").at(t0.plusMillis(i)));
    }

    await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() == jobs && running.get() == 0);

    instances.forEach(KairosScheduler::close);
    assertThat(maxRunning.get()).isEqualTo(2);
    assertThat(runs.values()).allMatch(n -> n.get() == 1);
    assertThat(ranOn).hasSizeGreaterThan(1);
  }
}
