package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.spi.StoreSource;
import dev.kairos.tck.PostgresTestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrency limits end to end on the JDBC store: one instance on H2 (batched start marks and the
 * write-back queue), and three clustered instances on PostgreSQL, where the limit counts the runs
 * of every instance. At most 2 runs at once in all; every fire runs exactly once.
 */
class JdbcConcurrencyLimitTest {
  @TempDir Path dir;

  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  @Test
  void h2_oneInstance_limitOfTwo() {
    check(() -> JdbcStore.h2(dir), List.of("a"));
  }

  @Test
  void postgres_threeInstances_limitOfTwoInAll() {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      check(() -> db.builder().poolSize(4).clustered(true).build(), List.of("a", "b", "c"));
    }
  }

  private void check(Supplier<StoreSource> stores, List<String> ids) {
    int jobs = 30;
    List<KairosScheduler> instances = new ArrayList<>();
    try {
      for (String id : ids) {
        KairosScheduler s =
            Engines.build(
                Kairos.builder()
                    .store(stores.get())
                    .instanceId(id)
                    .workers(4)
                    .clusterPoll(Duration.ofMillis(50))
                    .maxConcurrent("h", 2)
                    .handler(
                        "h",
                        ctx -> {
                          maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                          try {
                            runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger())
                                .incrementAndGet();
                            LockSupport.parkNanos(
                                ThreadLocalRandom.current().nextLong(5_000_000, 40_000_000));
                          } finally {
                            running.decrementAndGet();
                          }
                        }));
        instances.add(s);
        s.start();
      }
      Instant t0 = Instant.now().plusMillis(500);
      for (int i = 0; i < jobs; i++) {
        instances
            .get(i % instances.size())
            .schedule(JobSpec.named("j" + i).handler("h").at(t0.plusMillis(i)));
      }

      await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() == jobs && running.get() == 0);
    } finally {
      instances.forEach(KairosScheduler::close);
    }
    assertThat(maxRunning.get()).isEqualTo(2);
    assertThat(runs.values()).allMatch(n -> n.get() == 1);
  }
}
