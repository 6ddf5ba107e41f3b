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
        Engines.build(
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
                    }));
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
      assertContiguousFrom(t0, Duration.ofMillis(50), "rate" + i);
    }
    Set<String> ranOnInstances = Set.copyOf(ranOn.values());
    assertThat(ranOnInstances).containsExactlyInAnyOrder("a", "b", "c");
  }

  /**
   * The job's fires are slots of its timetable ({@code t0} + k × {@code period}) with none left out
   * after the first: a job scheduled when {@code t0} had already passed (a slow machine) starts at
   * its next slot, as a past {@code startAt} means.
   */
  private void assertContiguousFrom(Instant t0, Duration period, String key) {
    List<Instant> f = fires(key);
    assertThat(f).as(key).isNotEmpty();
    long first = Duration.between(t0, f.get(0)).toNanos();
    assertThat(first % period.toNanos())
        .as("%s: first fire %s on the grid", key, f.get(0))
        .isZero();
    assertThat(first).as("%s: first fire %s", key, f.get(0)).isNotNegative();
    for (int k = 0; k < f.size(); k++) {
      assertThat(f.get(k))
          .as("%s fire %d", key, k)
          .isEqualTo(f.get(0).plus(period.multipliedBy(k)));
    }
  }

  /**
   * Jittered jobs in a cluster: every fire runs once, with no gap, never before its scheduled fire
   * time plus its offset, whichever instance computed that due time.
   */
  @Test
  void threeInstances_jitteredFires_runOnceEach_neverBeforeTheirDueTime() {
    for (String id : List.of("a", "b", "c")) {
      instance(id, ctx -> {}).start();
    }
    Instant t0 = Instant.now().plusMillis(200);
    Duration jitter = Duration.ofMillis(80);
    for (int i = 0; i < 12; i++) {
      instances
          .get(i % 3)
          .schedule(
              JobSpec.named("jit" + i)
                  .handler("h")
                  .fixedRate(Duration.ofMillis(100))
                  .startAt(t0)
                  .jitter(jitter)
                  .misfire(Misfire.catchUp()));
    }

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                java.util.stream.IntStream.range(0, 12)
                    .allMatch(i -> fires("jit" + i).size() >= 10));

    instances.forEach(KairosScheduler::close);
    assertThat(duplicates.get()).isZero();
    for (int i = 0; i < 12; i++) {
      assertContiguousFrom(t0, Duration.ofMillis(100), "jit" + i);
    }
    for (JobContext run : runs) {
      Instant due =
          run.scheduledFireTime().plus(Jitter.offset(run.key(), run.scheduledFireTime(), jitter));
      assertThat(run.actualStart()).as("%s", run.key()).isAfterOrEqualTo(due);
    }
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

  /**
   * A job triggered through B while A runs it is no longer RUNNING but still claimed by A: B does
   * not retry its claim in a loop while A's run goes on, and the trigger runs once after it.
   */
  @Test
  void triggerThroughAnotherInstanceDuringARun_claimNotRetriedInALoop_triggerRunsOnceAfter()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch aStarted = new CountDownLatch(1);
    KairosScheduler a = instance("a", blockFirstRun(aStarted, release));
    a.start();
    a.schedule(JobSpec.named("job").handler("h").fixedRate(Duration.ofHours(1)));
    assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();
    AtomicInteger claims = new AtomicInteger();
    KairosScheduler b = counting("b", claims);
    b.start();

    b.triggerNow("job");
    int before = claims.get();
    Thread.sleep(1000); // A's run goes on; B must not spin on its claim meanwhile
    assertThat(claims.get() - before).isLessThan(5);

    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() >= 2);
    Thread.sleep(500); // the fire that ran before the trigger must not run again
    assertThat(runs).hasSize(2);
    assertThat(runs.get(1).scheduledFireTime()).isAfter(runs.get(0).scheduledFireTime());
    assertThat(duplicates.get()).isZero();
  }

  /**
   * A job triggered through B while A runs it, and A then dies: A's expired claim is reported
   * though the job is no longer RUNNING, so B takes the job over after the lease.
   */
  @Test
  void triggerDuringARunOfAnInstanceThatDies_takenOverAfterTheLease() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch aStarted = new CountDownLatch(1);
    KairosScheduler a = instance("a", blockFirstRun(aStarted, release));
    a.start();
    a.schedule(JobSpec.named("job").handler("h").fixedRate(Duration.ofHours(1)));
    assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();
    a.stopClusterSyncForTest(); // A froze: no more lease renewals
    KairosScheduler b = instance("b", ctx -> {});
    b.start();

    b.triggerNow("job");

    await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() >= 2);
    JobContext taken = runs.get(1);
    assertThat(taken.recovery()).isFalse();
    assertThat(taken.scheduledFireTime()).isAfter(runs.get(0).scheduledFireTime());
    assertThat(ranOn.get("job@" + taken.scheduledFireTime() + "#1")).isEqualTo("b");
    assertThat(a.runningKeys()).containsExactly("job"); // still frozen in its run
    release.countDown();
  }

  /** A handler that blocks the first run of "job" until released. */
  private dev.kairos.Job blockFirstRun(CountDownLatch started, CountDownLatch release) {
    return ctx -> {
      if (ctx.key().equals("job") && runs.size() == 1) {
        started.countDown();
        release.await();
      }
    };
  }

  /** An instance over the shared store that counts its claims. */
  private KairosScheduler counting(String id, AtomicInteger claims) {
    dev.kairos.spi.ClusterStore counting =
        (dev.kairos.spi.ClusterStore)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {dev.kairos.spi.ClusterStore.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("claim")) {
                    claims.incrementAndGet();
                  }
                  try {
                    return method.invoke(store, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(counting)
                .instanceId(id)
                .clusterLease(Duration.ofSeconds(1))
                .clusterPoll(Duration.ofMillis(50))
                .handler(
                    "h",
                    ctx -> {
                      ranOn.putIfAbsent(ctx.key() + "@" + ctx.scheduledFireTime() + "#1", id);
                      runs.add(ctx);
                    }));
    instances.add(s);
    return s;
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
