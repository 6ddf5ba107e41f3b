package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.engine.CallerTransactions;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A change made in a caller's open transaction ({@link CallerTransactions} says so) reaches the
 * heap only through the re-read run when the transaction ends; the heap then holds what the store
 * holds.
 */
class CallerTransactionsTest {
  private static final Instant T0 = Instant.parse("2026-01-05T00:00:00Z");
  private final InMemoryStore store = new InMemoryStore();
  private final List<Runnable> pending = new java.util.concurrent.CopyOnWriteArrayList<>();

  private final ManualClock clock = new ManualClock(T0);
  private final java.util.Queue<String> ran = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private volatile boolean open = true;

  private final KairosScheduler scheduler =
      Engines.build(
          Kairos.builder()
              .store(store)
              .clock(clock)
              .handler("h", ctx -> ran.add(ctx.key()))
              .callerTransactions(
                  reread -> {
                    if (open) {
                      pending.add(reread);
                    }
                    return open;
                  }));

  @AfterEach
  void close() {
    scheduler.close();
  }

  private void endTransaction() {
    open = false;
    pending.forEach(Runnable::run);
    pending.clear();
  }

  @Test
  void schedule_inOpenTransaction_queuedOnlyByTheRereadAtItsEnd() {
    scheduler.open();
    scheduler.schedule(JobSpec.named("j").handler("h").at(T0.plusSeconds(60)));
    assertThat(scheduler.queued()).isZero();
    assertThat(pending).hasSize(1);

    endTransaction(); // committed: the store holds the job

    assertThat(scheduler.queued()).isOne();
  }

  @Test
  void schedule_rolledBack_rereadFindsNothing_heapStaysEmpty() {
    scheduler.open();
    scheduler.schedule(JobSpec.named("j").handler("h").at(T0.plusSeconds(60)));
    store.delete("j"); // what the rollback does to a store taking part in the transaction

    endTransaction();

    assertThat(scheduler.queued()).isZero();
  }

  /**
   * A fire that comes due while a caller's open transaction holds its job's row (a pause written
   * there) waits for the transaction's end instead of marking its start (which would wait for the
   * row lock), then sees what was committed: paused, it does not run.
   */
  @Test
  void dueFireOfAJobChangedInOpenTransaction_waitsForItsEnd_thenFollowsTheCommit()
      throws Exception {
    open = false;
    scheduler.open();
    scheduler.schedule(JobSpec.named("held").handler("h").fixedRate(Duration.ofSeconds(10)));
    scheduler.schedule(JobSpec.named("other").handler("h").fixedRate(Duration.ofSeconds(10)));
    assertThat(scheduler.runDue()).isEqualTo(2);
    ran.clear();
    open = true;
    scheduler.pause("held"); // in the open transaction
    open = false;
    clock.advance(Duration.ofSeconds(10)); // both due again

    int[] processed = new int[1];
    Thread step = new Thread(() -> processed[0] = scheduler.runDue(), "step");
    step.start(); // takes "held" first (scheduled first)
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> step.getState() == Thread.State.TIMED_WAITING); // parked, waiting
    assertThat(ran).isEmpty();

    endTransaction(); // committed: the job is paused

    step.join(10_000);
    assertThat(step.isAlive()).isFalse();
    assertThat(processed[0]).isEqualTo(2);
    assertThat(ran).containsExactly("other");
    assertThat(scheduler.queued()).isOne(); // other
  }

  @Test
  void unscheduleAndBulkChanges_deferTheirRereadToo() {
    open = false;
    scheduler.open();
    scheduler.schedule(JobSpec.named("j").handler("h").at(T0.plusSeconds(60)));
    assertThat(scheduler.queued()).isOne();
    open = true;

    scheduler.unschedule("j");
    scheduler.scheduleAll(
        List.of(JobSpec.named("k").handler("h").fixedRate(Duration.ofSeconds(30))));
    assertThat(scheduler.queued()).isZero(); // j left at once, k not queued yet
    assertThat(pending).hasSize(2);

    endTransaction();

    assertThat(scheduler.queued()).isOne(); // k
  }
}
