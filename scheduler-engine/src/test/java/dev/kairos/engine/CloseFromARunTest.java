package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.Scheduler;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A job may shut its application down, and so call {@code close()} from its own run (directly, or
 * through a framework that closes the scheduler on the same thread). close() then cannot wait for
 * that run: it stops everything else and returns, and the run is written back when it ends. Before,
 * close() waited the whole grace period for its own thread, interrupted it, closed the store under
 * it, and the run was never recorded: its job stayed RUNNING and ran again, as a recovery, at every
 * start.
 */
class CloseFromARunTest {
  private static final Duration GRACE = Duration.ofSeconds(20);

  @Test
  void closeFromARun_returnsWithoutWaitingForThatRun_theRunIsRecorded_allThreadsEnd() {
    InMemoryStore store = new InMemoryStore(100, true);
    AtomicReference<Scheduler> scheduler = new AtomicReference<>();
    AtomicLong closeTookNanos = new AtomicLong(-1);
    AtomicInteger ticksAfterClose = new AtomicInteger();
    AtomicReference<Boolean> interrupted = new AtomicReference<>();
    Scheduler s =
        Kairos.builder()
            .store(store)
            .instanceId("close-from-run")
            .workers(3)
            .gracePeriod(GRACE)
            .handler(
                "closer",
                ctx -> {
                  long t0 = System.nanoTime();
                  scheduler.get().close();
                  closeTookNanos.set(System.nanoTime() - t0);
                  interrupted.set(Thread.currentThread().isInterrupted());
                })
            .handler(
                "tick",
                ctx -> {
                  if (closeTookNanos.get() >= 0) {
                    ticksAfterClose.incrementAndGet();
                  }
                })
            .build();
    scheduler.set(s);
    s.schedule(JobSpec.named("tick").handler("tick").fixedRate(Duration.ofMillis(10)));
    s.schedule(JobSpec.named("closer").handler("closer").after(Duration.ofMillis(100)));
    s.start();

    // well under the grace period, which close() used to wait for its own thread
    await().atMost(GRACE.dividedBy(2)).until(() -> closeTookNanos.get() >= 0);
    assertThat(Duration.ofNanos(closeTookNanos.get())).isLessThan(GRACE.dividedBy(2));
    assertThat(interrupted.get()).as("the calling run was interrupted").isFalse();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JobRecord closer = store.find("closer").orElseThrow();
              assertThat(closer.state()).isEqualTo(JobState.COMPLETE);
              assertThat(closer.runCount()).isEqualTo(1);
            });
    assertThat(store.history("closer", 10))
        .extracting(RunRecord::outcome)
        .containsExactly(RunOutcome.SUCCESS);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().contains("close-from-run") && t.isAlive()));
    assertThat(ticksAfterClose).hasValue(0);
  }
}
