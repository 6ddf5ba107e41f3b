package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Overlap;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Overlap#replace()} in cluster mode, two instances over a shared in-memory store: the
 * instance running the job interrupts its run when the next fire comes due, and that fire then runs
 * once, on whichever instance claims it, only after the interrupted run has returned.
 */
class ClusterReplaceTest {
  private final InMemoryStore store = InMemoryStore.shared(TimeSource.system());
  private final List<KairosScheduler> instances = new ArrayList<>();
  private final Map<Instant, String> ranOn = new ConcurrentHashMap<>();
  private final AtomicInteger duplicates = new AtomicInteger();
  private final AtomicInteger runs = new AtomicInteger();
  private final Map<Instant, long[]> spans = new ConcurrentHashMap<>(); // fire → start, end nanos

  @AfterEach
  void closeAll() {
    instances.forEach(KairosScheduler::close);
  }

  private KairosScheduler instance(String id) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .instanceId(id)
                .workers(2)
                .clusterLease(Duration.ofSeconds(2))
                .clusterPoll(Duration.ofMillis(50))
                .handler(
                    "h",
                    ctx -> {
                      long begin = System.nanoTime();
                      if (ranOn.putIfAbsent(ctx.scheduledFireTime(), id) != null) {
                        duplicates.incrementAndGet();
                      }
                      try {
                        if (runs.incrementAndGet() == 1) {
                          new CountDownLatch(1).await(20, TimeUnit.SECONDS); // until replaced
                        }
                      } finally {
                        spans.put(ctx.scheduledFireTime(), new long[] {begin, System.nanoTime()});
                      }
                    }));
    instances.add(s);
    return s;
  }

  @Test
  void theOwnerInterruptsItsRun_theNextFireRunsOnceAfterIt() {
    KairosScheduler a = instance("a");
    KairosScheduler b = instance("b");
    a.start();
    b.start();
    Instant t0 = Instant.now().plusMillis(1000); // not past when schedule() returns, however slow
    a.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(Duration.ofMillis(400))
            .startAt(t0)
            .overlap(Overlap.replace()));

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                store.history("j", 100).stream()
                        .filter(r -> r.outcome() == RunOutcome.SUCCESS)
                        .count()
                    >= 3);

    List<RunRecord> history = store.history("j", 100);
    RunRecord replaced =
        history.stream()
            .filter(r -> r.outcome() == RunOutcome.INTERRUPTED)
            .findFirst()
            .orElseThrow();
    assertThat(replaced.scheduledFireTime()).isEqualTo(t0);
    assertThat(replaced.error()).startsWith("replaced by the fire of " + t0.plusMillis(400));
    assertThat(history).filteredOn(r -> r.outcome() == RunOutcome.INTERRUPTED).hasSize(1);
    assertThat(duplicates).hasValue(0);
    long[] first = spans.get(t0);
    long[] second = spans.get(t0.plusMillis(400));
    assertThat(second).as("the replacing fire ran").isNotNull();
    assertThat(second[0])
        .as("it started after the interrupted run returned")
        .isGreaterThan(first[1]);
    assertThat(Duration.ofNanos(first[1] - first[0]))
        .as("the first run was cut short, not left for its 20 s")
        .isLessThan(Duration.ofSeconds(10));
  }
}
