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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

  /** While {@link #open}, a change's re-read waits in {@link #pending} for the "commit". */
  private final CallerTransactions transactions =
      reread -> {
        if (open) {
          pending.add(reread);
        }
        return open;
      };

  private final KairosScheduler scheduler =
      Engines.build(
          Kairos.builder()
              .store(store)
              .clock(clock)
              .handler("h", ctx -> ran.add(ctx.key()))
              .callerTransactions(transactions));

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
   * there) is set aside instead of marking its start (which would wait for the row lock) or keeping
   * a worker waiting: the other job's fire runs. At the transaction's end the held job follows what
   * was committed: paused, it does not run.
   */
  @Test
  void dueFireOfAJobChangedInOpenTransaction_setAside_othersRun_thenFollowsTheCommit() {
    open = false;
    scheduler.open();
    scheduler.schedule(JobSpec.named("held").handler("h").fixedRate(Duration.ofSeconds(10)));
    scheduler.schedule(JobSpec.named("other").handler("h").fixedRate(Duration.ofSeconds(10)));
    assertThat(scheduler.runDue()).isEqualTo(2);
    ran.clear();
    open = true;
    scheduler.pause("held"); // in the open transaction
    open = false;
    clock.advance(Duration.ofSeconds(10)); // both due again; "held" is the heap's head

    assertThat(scheduler.runDue()).isOne(); // without waiting for the transaction
    assertThat(ran).containsExactly("other");
    assertThat(scheduler.queued()).isEqualTo(2); // other's next fire, held set aside

    endTransaction(); // committed: the job is paused

    assertThat(scheduler.queued()).isOne(); // other
    assertThat(scheduler.runDue()).isZero();
    assertThat(ran).containsExactly("other");
  }

  /**
   * A fire set aside while its job was held runs once the transaction has ended, if what it
   * committed leaves the job due (a trigger), and only then.
   */
  @Test
  void fireSetAsideForATransaction_runsAfterItsEnd_whenTheCommitLeavesItDue() {
    open = false;
    scheduler.open();
    scheduler.schedule(JobSpec.named("held").handler("h").fixedRate(Duration.ofSeconds(10)));
    assertThat(scheduler.runDue()).isOne();
    ran.clear();
    clock.advance(Duration.ofSeconds(10));
    open = true;
    scheduler.triggerNow("held"); // in the open transaction; the timetable's fire is due too
    open = false;

    assertThat(scheduler.runDue()).isZero();
    assertThat(scheduler.queued()).isOne(); // set aside, still tracked

    endTransaction();

    assertThat(scheduler.runDue()).isEqualTo(2); // the trigger, then the timetable's fire
    assertThat(ran).containsExactly("held", "held");
  }

  /**
   * With one worker, three due jobs held by an open transaction do not keep the worker from a
   * fourth job's fire (before, the worker that took the first held fire waited for the
   * transaction's end, and with it every other fire); real worker threads over the manual clock.
   */
  @Test
  void moreHeldDueFiresThanWorkers_otherJobsStillFire() {
    java.util.Queue<String> runs = new java.util.concurrent.ConcurrentLinkedQueue<>();
    KairosScheduler one =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .clock(clock)
                .workers(1)
                .handler("h", ctx -> runs.add(ctx.key()))
                .callerTransactions(transactions));
    try {
      open = false;
      for (String key : List.of("a", "b", "c", "other")) { // the held ones are taken first
        one.schedule(JobSpec.named(key).handler("h").fixedRate(Duration.ofSeconds(10)));
      }
      one.start();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> runs.size() == 4);
      runs.clear();
      open = true;
      for (String key : List.of("a", "b", "c")) {
        one.pause(key); // in the open transaction
      }
      open = false;

      clock.advance(Duration.ofSeconds(10));

      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> runs.contains("other"));
      endTransaction(); // paused: a, b, c never run
      clock.advance(Duration.ofSeconds(10));
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> runs.size() == 2);
      assertThat(runs).containsExactly("other", "other");
      assertThat(one.queued()).isOne();
    } finally {
      one.close();
    }
  }

  /**
   * A fire set aside for a transaction does not keep a concurrency-limit permit handed to it while
   * it waited: the limit's next fire runs meanwhile (limit 1; "slow" holds the permit, "held" waits
   * for it and is changed in an open transaction, "third" waits behind it).
   */
  @Test
  void fireSetAsideWithAHandedPermit_passesItOn() {
    Map<String, java.util.concurrent.CountDownLatch> gates = new ConcurrentHashMap<>();
    java.util.Queue<String> started = new java.util.concurrent.ConcurrentLinkedQueue<>();
    KairosScheduler limited =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore())
                .clock(clock)
                .workers(4)
                .maxConcurrent("h", 1)
                .handler(
                    "h",
                    ctx -> {
                      started.add(ctx.key());
                      gates
                          .computeIfAbsent(
                              ctx.key(), k -> new java.util.concurrent.CountDownLatch(1))
                          .await();
                    })
                .callerTransactions(transactions));
    try {
      open = false;
      List<String> keys = List.of("slow", "held", "third");
      for (int i = 0; i < keys.size(); i++) {
        limited.schedule(JobSpec.named(keys.get(i)).handler("h").at(T0.plusSeconds(i + 1)));
      }
      limited.start();
      clock.advance(Duration.ofSeconds(1));
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> started.contains("slow"));
      clock.advance(Duration.ofSeconds(2)); // "held" and "third" due, waiting for the permit
      open = true;
      limited.triggerNow("held"); // in the open transaction
      open = false;

      gates.computeIfAbsent("slow", k -> new java.util.concurrent.CountDownLatch(1)).countDown();

      org.awaitility.Awaitility.await() // handed to "held", set aside, passed on
          .atMost(Duration.ofSeconds(10))
          .until(() -> started.contains("third"));
      assertThat(started).containsExactly("slow", "third");
      endTransaction();
      gates.computeIfAbsent("third", k -> new java.util.concurrent.CountDownLatch(1)).countDown();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> started.contains("held"));
    } finally {
      gates.values().forEach(java.util.concurrent.CountDownLatch::countDown);
      limited.close();
    }
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
