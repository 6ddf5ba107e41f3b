package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.ClusterStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A process paused between winning a claim and starting the run (a SIGSTOP, a long GC pause) for
 * longer than the lease: another instance recovers the fire and runs it; the paused one, resumed,
 * must not run it again. Simulated by a store view whose winning claim of the job does not return
 * until the test lets it, while the rest of the instance goes on; the lease is 1 s.
 */
class ClusterPausedClaimTest {
  private static final Duration LEASE = Duration.ofSeconds(1);

  private final InMemoryStore shared = InMemoryStore.shared(TimeSource.system());
  private final List<KairosScheduler> instances = new ArrayList<>();
  private final List<String> runs = new CopyOnWriteArrayList<>();
  private final CountDownLatch resume = new CountDownLatch(1);
  private final AtomicBoolean paused = new AtomicBoolean();
  private final AtomicBoolean claimReturned = new AtomicBoolean();

  /** The shared store, but the first claim of "j" that wins stays in the call until resumed. */
  private ClusterStore pausingAfterClaim() {
    return StoreInterceptor.wrap(
        shared,
        (method, out) -> {
          if (method.equals("claim")
              && out instanceof Optional<?> won
              && won.isPresent()
              && paused.compareAndSet(false, true)) {
            resume.await();
            claimReturned.set(true);
          }
          return out;
        });
  }

  private KairosScheduler instance(String id, ClusterStore store) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .instanceId(id)
                .workers(2)
                .clusterLease(LEASE)
                .clusterPoll(Duration.ofMillis(20))
                .handler(
                    "h",
                    (JobContext ctx) ->
                        runs.add(
                            id + (ctx.recovery() ? " recovery " : " ") + ctx.scheduledFireTime())));
    instances.add(s);
    return s;
  }

  @AfterEach
  void closeAll() {
    resume.countDown();
    instances.forEach(KairosScheduler::close);
  }

  @Test
  void pausedLongerThanTheLeaseAfterItsClaim_theRecoveredFireIsNotRunAgainOnResume() {
    KairosScheduler a = instance("a", pausingAfterClaim());
    a.start();
    Instant fire = Instant.now().plusMillis(1000); // not past when schedule() returns, however slow
    a.schedule(JobSpec.named("j").handler("h").fixedRate(Duration.ofHours(1)).startAt(fire));
    await().atMost(Duration.ofSeconds(20)).until(paused::get); // a won the claim, and is paused

    instance("b", shared).start();
    await().atMost(Duration.ofSeconds(20)).until(() -> !runs.isEmpty());
    assertThat(runs).containsExactly("b recovery " + fire);

    resume.countDown(); // a goes on, more than a lease after its claim
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> claimReturned.get() && a.stats().runningJobs() == 0);
    assertThat(runs).containsExactly("b recovery " + fire);
    assertThat(a.job("j").orElseThrow().nextFireTime()).isEqualTo(fire.plus(Duration.ofHours(1)));
  }
}
