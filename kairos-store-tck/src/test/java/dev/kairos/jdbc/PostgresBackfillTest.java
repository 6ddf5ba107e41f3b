package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.spi.BackfillSlot;
import dev.kairos.tck.PostgresTestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Backfill in cluster mode on PostgreSQL: three instances on one schema, backfills asked of each,
 * every slot runs exactly once and each job's slots in order (the claim is the database's
 * compare-and-set on the slot row).
 */
class PostgresBackfillTest {
  private static final Duration HOUR = Duration.ofHours(1);

  @Test
  void cluster_threeInstances_eachSlotRunsExactlyOnceInOrder() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      int jobs = 6;
      int perJob = 8;
      Map<String, AtomicInteger> count = new ConcurrentHashMap<>();
      Map<String, List<Instant>> order = new ConcurrentHashMap<>();
      CountDownLatch all = new CountDownLatch(jobs * perJob);
      List<KairosScheduler> instances = new ArrayList<>();
      try {
        for (String id : List.of("a", "b", "c")) {
          KairosScheduler s =
              Engines.build(
                  Kairos.builder()
                      .store(db.builder().poolSize(4).clustered(true).build())
                      .instanceId(id)
                      .defaultZone(ZoneOffset.UTC)
                      .handler(
                          "h",
                          (JobContext ctx) -> {
                            if (!ctx.backfill()) {
                              return;
                            }
                            count
                                .computeIfAbsent(
                                    ctx.key() + "@" + ctx.scheduledFireTime(),
                                    k -> new AtomicInteger())
                                .incrementAndGet();
                            order
                                .computeIfAbsent(ctx.key(), k -> new CopyOnWriteArrayList<>())
                                .add(ctx.scheduledFireTime());
                            all.countDown();
                          }));
          instances.add(s);
        }
        instances.forEach(KairosScheduler::start);
        Instant now = Instant.now().truncatedTo(ChronoUnit.HOURS);
        for (int j = 0; j < jobs; j++) {
          instances
              .get(0)
              .schedule(
                  JobSpec.named("job" + j)
                      .handler("h")
                      .fixedRate(HOUR)
                      .startAt(now.minus(Duration.ofDays(2))));
        }
        for (int j = 0; j < jobs; j++) { // each asked of two instances: queued once
          Instant from = now.minus(HOUR.multipliedBy(perJob));
          assertThat(instances.get(j % 3).backfill("job" + j, from, now)).isEqualTo(perJob);
          assertThat(instances.get((j + 1) % 3).backfill("job" + j, from, now)).isZero();
        }

        assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
        instances.forEach(KairosScheduler::close);

        assertThat(count).hasSize(jobs * perJob);
        assertThat(count.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(order.values()).allSatisfy(fires -> assertThat(fires).isSorted());
        try (JdbcStore check = db.builder().build()) {
          for (int j = 0; j < jobs; j++) {
            assertThat(check.jobStore().backfillSlots("job" + j))
                .extracting(BackfillSlot::state)
                .containsOnly(BackfillSlot.State.DONE);
          }
        }
      } finally {
        instances.forEach(KairosScheduler::close);
      }
    }
  }
}
