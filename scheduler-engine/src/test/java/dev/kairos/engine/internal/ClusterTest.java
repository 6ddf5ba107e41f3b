package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cluster mode over a shared in-memory store: three schedulers in one JVM claim fires, renew and
 * recover leases, and follow each other's changes. (The PostgreSQL cluster tests run real JVMs.)
 */
class ClusterTest {
  private final InMemoryStore store = InMemoryStore.shared(TimeSource.system());
  private final List<KairosScheduler> instances = new ArrayList<>();
  private final Map<String, String> ranOn = new ConcurrentHashMap<>();
  private final AtomicInteger duplicates = new AtomicInteger();
  private final List<JobContext> runs = new CopyOnWriteArrayList<>();

  private KairosScheduler instance(String id, dev.kairos.Job extra) {
    KairosScheduler s =
        Kairos.builder()
            .store(store)
            .instanceId(id)
            .workers(4)
            .clusterLease(Duration.ofSeconds(1))
            .clusterPoll(Duration.ofMillis(50))
            .handler(
                "h",
                ctx -> {
                  String fire = ctx.key() + "@" + ctx.scheduledFireTime() + "#" + ctx.attempt();
                  String prev = ranOn.putIfAbsent(fire, id);
                  if (prev != null && !ctx.recovery()) {
                    duplicates.incrementAndGet();
                  }
                  runs.add(ctx);
                  extra.run(ctx);
                })
            .buildEngine();
    instances.add(s);
    return s;
  }

  @AfterEach
  void closeAll() {
    instances.forEach(KairosScheduler::close);
  }

  @Test
  void threeInstances_eachFireRunsExactlyOnce_noGaps() throws Exception {
    for (String id : List.of("a", "b", "c")) {
      instance(id, ctx -> {}).start();
    }
    Instant t0 = Instant.now().plusMillis(200);
    KairosScheduler a = instances.get(0);
    for (int i = 0; i < 30; i++) {
      a.schedule(
          JobSpec.named("rate" + i)
              .handler("h")
              .fixedRate(Duration.ofMillis(50))
              .startAt(t0)
              .misfire(Misfire.catchUp()));
    }
    for (int i = 0; i < 30; i++) {
      instances
          .get(i % 3)
          .schedule(JobSpec.named("once" + i).handler("h").at(t0.plusMillis(i * 20)));
    }

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                fires("rate29").size() >= 40
                    && runs.stream().filter(c -> c.key().startsWith("once")).count() == 30);

    instances.forEach(KairosScheduler::close);
    assertThat(duplicates.get()).isZero();
    for (int i = 0; i < 30; i++) {
      List<Instant> f = fires("rate" + i);
      for (int k = 0; k < f.size(); k++) {
        assertThat(f.get(k)).as("rate%d fire %d", i, k).isEqualTo(t0.plusMillis(50L * k));
      }
    }
    Set<String> ranOnInstances = Set.copyOf(ranOn.values());
    assertThat(ranOnInstances).containsExactlyInAnyOrder("a", "b", "c");
  }

  private List<Instant> fires(String key) {
    return runs.stream()
        .filter(c -> c.key().equals(key))
        .map(JobContext::scheduledFireTime)
        .sorted()
        .distinct()
        .toList();
  }

  @Test
  void instanceFreezesMidRun_anotherRecoversTheFireOnceAfterTheLease() throws Exception {
    CountDownLatch blockA = new CountDownLatch(1);
    CountDownLatch aStarted = new CountDownLatch(1);
    KairosScheduler a =
        instance(
            "a",
            ctx -> {
              if (!ctx.recovery() && ctx.key().equals("job") && runs.size() == 1) {
                aStarted.countDown();
                blockA.await(); // frozen mid-run
              }
            });
    a.start();
    a.schedule(JobSpec.named("job").handler("h").fixedRate(Duration.ofHours(1)));
    assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();
    a.stopClusterSyncForTest(); // no more lease renewals: as if the process froze

    KairosScheduler b = instance("b", ctx -> {});
    b.start();
    await().atMost(Duration.ofSeconds(15)).until(() -> runs.size() == 2);
    blockA.countDown(); // a wakes up and writes back a stale version: it must not clobber b's state

    JobContext recovered = runs.get(1);
    assertThat(recovered.recovery()).isTrue();
    assertThat(recovered.scheduledFireTime()).isEqualTo(runs.get(0).scheduledFireTime());
    assertThat(ranOn.get("job@" + recovered.scheduledFireTime() + "#1")).isEqualTo("a");
    await().atMost(Duration.ofSeconds(10)).until(() -> a.runningKeys().isEmpty());
    assertThat(store.find("job").orElseThrow().nextFireTime())
        .isEqualTo(runs.get(0).scheduledFireTime().plus(Duration.ofHours(1)));
    assertThat(runs).hasSize(2);
  }

  @Test
  void pauseThroughOneInstance_stopsTheJobOnAllWithinASecond() throws Exception {
    for (String id : List.of("a", "b", "c")) {
      instance(id, ctx -> {}).start();
    }
    instances.get(1).schedule(JobSpec.named("tick").handler("h").fixedRate(Duration.ofMillis(20)));
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() >= 30);

    instances.get(0).pause("tick");
    Instant paused = Instant.now();
    Thread.sleep(1500); // observe the cluster for longer than the propagation bound

    assertThat(runs).filteredOn(c -> c.actualStart().isAfter(paused.plusSeconds(1))).isEmpty();
    instances.get(2).resume("tick");
    int before = runs.size();
    await().atMost(Duration.ofSeconds(5)).until(() -> runs.size() > before + 10);
    assertThat(duplicates.get()).isZero();
  }
}
