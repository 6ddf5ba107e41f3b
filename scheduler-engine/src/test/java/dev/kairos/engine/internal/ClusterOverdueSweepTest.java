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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The overdue sweep ({@link ClusterSync}): instance "a" reads the shared store through a feed that
 * never delivers the changes of jobs named {@code lost-*}, as a JDBC feed misses a change committed
 * after its settle time. Jobs scheduled through instance "b" (built, never started, so it runs
 * nothing) reach "a" only through the sweep: each runs once, on "a", as soon as it is overdue. Real
 * time, generous bounds.
 */
class ClusterOverdueSweepTest {
  private final InMemoryStore shared = InMemoryStore.shared(TimeSource.system());
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final java.util.Set<String> missed = ConcurrentHashMap.newKeySet();

  @AfterEach
  void closeAll() {
    schedulers.forEach(Scheduler::close);
  }

  /** The shared store, with a feed that drops the changes of {@code lost-*} jobs. */
  private ClusterStore losingFeed() {
    return StoreInterceptor.wrap(
        shared,
        (method, out) -> {
          if (method.equals("changesSince")) {
            ClusterStore.Changes c = (ClusterStore.Changes) out;
            return new ClusterStore.Changes(
                c.changed().stream().filter(r -> !r.key().startsWith("lost-")).toList(),
                c.deleted(),
                c.cursor());
          }
          return out;
        });
  }

  private Scheduler instance(String id, ClusterStore store) {
    Scheduler s =
        Kairos.builder()
            .store(store)
            .instanceId(id)
            .clusterLease(Duration.ofSeconds(3)) // a sweep every half second
            .listener(
                new dev.kairos.SchedulerListener() {
                  @Override
                  public void changeMissed(String key, Instant dueTime) {
                    missed.add(id + ":" + key);
                  }
                })
            .handler(
                "h",
                ctx -> runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet())
            .build();
    schedulers.add(s);
    return s;
  }

  /**
   * Waits until {@code s} has read its first window (its next wake-up is then the next load,
   * minutes away): jobs scheduled after that reach it only through the change feed or the sweep.
   * Scheduled before, its first load would find them, and the sweep would report none missed.
   */
  private static void awaitFirstLoad(Scheduler s) {
    KairosScheduler k = (KairosScheduler) s;
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> k.nextDue().map(t -> t.isAfter(Instant.now().plusSeconds(30))).orElse(false));
  }

  @Test
  void jobsWhoseChangesTheFeedLost_runOnceWhenOverdue() {
    Scheduler a = instance("a", losingFeed());
    Scheduler b = instance("b", shared);
    a.start();
    awaitFirstLoad(a);
    Instant now = Instant.now();
    for (int i = 0; i < 20; i++) {
      b.schedule(JobSpec.named("lost-" + i).handler("h").at(now));
    }
    b.schedule(JobSpec.named("seen").handler("h").at(now));

    await().atMost(Duration.ofSeconds(10)).until(() -> runs.containsKey("seen"));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> runs.keySet().stream().filter(k -> k.startsWith("lost-")).count() == 20);
    a.close();

    runs.forEach((key, n) -> assertThat(n).as("runs of %s", key).hasValue(1));
    assertThat(missed)
        .as("jobs the sweep reported as missed by the feed")
        .hasSize(20)
        .allMatch(k -> k.startsWith("a:lost-"));
    assertThat(shared.overdueJobs(Duration.ZERO, null, 100).jobs()).as("jobs left due").isEmpty();
  }

  /**
   * More than a sweep's page of overdue jobs that instance "a" must leave alone (their handler is
   * registered on no running instance), all due before the lost ones: the sweep reads on past them
   * page by page and still finds the lost jobs, each run once.
   */
  @Test
  void lostJobsBehindMoreThanAPageOfJobsLeftAlone_stillFound() {
    Scheduler a = instance("a", losingFeed());
    Instant now = Instant.now();
    List<JobRecord> elsewhere = new ArrayList<>();
    for (int i = 0; i < 1_500; i++) {
      elsewhere.add(
          JobRecord.fresh(
              JobSpec.named(String.format("elsewhere-%04d", i))
                  .handler("runs-elsewhere")
                  .at(now.minus(Duration.ofHours(1))),
              now.minus(Duration.ofHours(1))));
    }
    shared.upsertAll(elsewhere);
    Scheduler b = instance("b", shared);
    a.start();
    awaitFirstLoad(a);
    for (int i = 0; i < 5; i++) {
      b.schedule(JobSpec.named("lost-" + i).handler("h").at(now));
    }

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> runs.keySet().stream().filter(k -> k.startsWith("lost-")).count() == 5);
    a.close();

    runs.forEach((key, n) -> assertThat(n).as("runs of %s", key).hasValue(1));
    assertThat(runs.keySet()).noneMatch(k -> k.startsWith("elsewhere-"));
    assertThat(missed).hasSize(5).allMatch(k -> k.startsWith("a:lost-"));
  }
}
