package dev.kairos.engine.internal;

import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Overlap;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * API calls made while a run is in progress (issue #10, findings 1 and 2), deterministically: the
 * job's own body makes the call, on the step API's thread, in the middle of its run. A fire runs
 * once whatever changes race with it, and {@code pause()} returning means nothing runs until
 * resumed. Subclasses run the same cases on database stores.
 */
public class RacingChangesTest {
  /** What the running job does to its own schedule, on its first run only. */
  private final AtomicReference<Consumer<JobContext>> duringFirstRun = new AtomicReference<>();

  protected Harness h;

  /** The store under test; a new, empty one per test. */
  protected JobStore newStore() {
    return new InMemoryStore();
  }

  /** Whether the test's "caller" has a transaction open (see {@link #callerTransaction}). */
  private boolean transactionOpen;

  private final List<Runnable> atTransactionEnd = new ArrayList<>();

  @BeforeEach
  public void setUp() {
    h =
        new Harness(
            newStore(),
            Kairos.builder()
                .callerTransactions(
                    reread -> {
                      if (transactionOpen) {
                        atTransactionEnd.add(reread);
                      }
                      return transactionOpen;
                    }),
            ctx -> {
              Consumer<JobContext> once = duringFirstRun.getAndSet(null);
              if (once != null) {
                once.accept(ctx);
              }
            });
  }

  @AfterEach
  public void tearDown() {
    h.scheduler.close();
  }

  private static JobSpec every10s() {
    return JobSpec.named("j").handler("h").fixedRate(ofSeconds(10));
  }

  private JobRecord stored() {
    return h.store.find("j").orElseThrow();
  }

  @Test
  public void pauseThenResume_duringARun_doesNotRunThatFireAgain() {
    h.scheduler.schedule(every10s());
    duringFirstRun.set(
        ctx -> {
          h.scheduler.pause("j");
          h.scheduler.resume("j");
        });

    h.runUntil(Harness.T0.plusSeconds(35));

    assertThat(h.fires()).containsExactly(0L, 10_000L, 20_000L, 30_000L);
    assertThat(stored().nextFireTime()).isEqualTo(Harness.T0.plusSeconds(40));
  }

  @Test
  public void pauseThenResume_duringARun_leaveTheRunMarked_soACrashWouldRecoverIt() {
    h.scheduler.schedule(every10s());
    AtomicReference<JobState> afterResume = new AtomicReference<>();
    duringFirstRun.set(
        ctx -> {
          h.scheduler.pause("j");
          assertThat(stored().state()).isEqualTo(JobState.PAUSED);
          h.scheduler.resume("j");
          afterResume.set(stored().state());
        });

    h.runUntil(Harness.T0.plusSeconds(15));

    // Before, resume() wrote SCHEDULED over the run's mark: a crash then re-ran the fire
    // without ctx.recovery().
    assertThat(afterResume.get()).isEqualTo(JobState.RUNNING);
    assertThat(h.fires()).containsExactly(0L, 10_000L);
    assertThat(stored().state()).isEqualTo(JobState.SCHEDULED);
    assertThat(h.scheduler.job("j").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
  }

  @Test
  public void pauseThenResume_afterARun_leaveTheJobScheduled() {
    h.scheduler.schedule(every10s());
    h.runUntil(Harness.T0.plusSeconds(5));
    h.scheduler.pause("j");
    h.scheduler.resume("j");

    assertThat(stored().state()).isEqualTo(JobState.SCHEDULED);
    h.runUntil(Harness.T0.plusSeconds(25));
    assertThat(h.fires()).containsExactly(0L, 10_000L, 20_000L);
  }

  @Test
  public void reschedule_duringARun_leavesTheRunMarked() {
    h.scheduler.schedule(every10s());
    AtomicReference<JobState> afterChange = new AtomicReference<>();
    duringFirstRun.set(
        ctx -> {
          h.scheduler.schedule(JobSpec.named("j").handler("h").fixedRate(ofSeconds(7)));
          afterChange.set(stored().state());
        });

    h.runUntil(Harness.T0.plusSeconds(1));

    assertThat(afterChange.get()).isEqualTo(JobState.RUNNING);
    assertThat(stored().state()).isEqualTo(JobState.SCHEDULED);
  }

  @Test
  public void pause_duringARun_keepsTheRunsStartInThePausedRow_untilItsWriteBack() {
    h.scheduler.schedule(every10s());
    AtomicReference<JobRecord> paused = new AtomicReference<>();
    AtomicReference<java.time.Instant> start = new AtomicReference<>();
    duringFirstRun.set(
        ctx -> {
          h.scheduler.pause("j");
          paused.set(stored());
          start.set(ctx.actualStart());
        });

    h.runUntil(Harness.T0.plusSeconds(1));

    // Before, the paused row kept no trace of the run: a crash during it re-ran its fire at
    // resume() without ctx.recovery().
    assertThat(paused.get().state()).isEqualTo(JobState.PAUSED);
    assertThat(paused.get().stats().startNotEnded()).isTrue();
    assertThat(paused.get().stats().lastStart()).isEqualTo(start.get());
    assertThat(stored().state()).isEqualTo(JobState.PAUSED);
    assertThat(stored().stats().startNotEnded()).as("the write-back ends it").isFalse();
  }

  @Test
  public void triggerNow_ofAPausedJob_marksItsRunInThePausedRow_untilItsWriteBack() {
    h.scheduler.schedule(every10s());
    h.scheduler.pause("j");
    AtomicReference<JobRecord> during = new AtomicReference<>();
    duringFirstRun.set(ctx -> during.set(stored()));
    h.scheduler.triggerNow("j");

    h.runUntil(Harness.T0.plusSeconds(1));

    assertThat(h.fires()).containsExactly(0L);
    assertThat(during.get().state()).isEqualTo(JobState.PAUSED);
    assertThat(during.get().stats().startNotEnded()).isTrue();
    assertThat(stored().state()).isEqualTo(JobState.PAUSED);
    assertThat(stored().stats().startNotEnded()).isFalse();
  }

  @Test
  public void triggerNow_ofAPausedJobWhoseRunsMayOverlap_runsOnce_andTheJobStaysPaused() {
    h.scheduler.schedule(
        JobSpec.named("j").handler("h").fixedRate(ofSeconds(10)).overlap(Overlap.allow(2)));
    h.scheduler.pause("j");
    h.scheduler.triggerNow("j");

    h.runUntil(Harness.T0.plusSeconds(60));

    // Before, the run's start wrote the job SCHEDULED: it then fired every 10 s although paused.
    assertThat(h.fires()).containsExactly(0L);
    assertThat(stored().state()).isEqualTo(JobState.PAUSED);
    assertThat(stored().dueTime()).isNull();
    assertThat(h.scheduler.job("j").orElseThrow().state()).isEqualTo(JobState.PAUSED);
  }

  /**
   * Runs {@code calls} as if in a transaction of the caller's (the engine is told one is open; the
   * store here commits on its own), then ends it.
   */
  private void callerTransaction(Runnable calls) {
    transactionOpen = true;
    try {
      calls.run();
    } finally {
      transactionOpen = false;
    }
    atTransactionEnd.forEach(Runnable::run);
    atTransactionEnd.clear();
  }

  @Test
  public void pause_duringARun_inACallersTransaction_writesTheRunsStartInIt() {
    h.scheduler.schedule(every10s());
    List<Instant> lastStart = new ArrayList<>(); // during the transaction, then after it
    duringFirstRun.set(
        ctx -> {
          callerTransaction(
              () -> {
                h.scheduler.pause("j");
                lastStart.add(stored().stats().lastStart());
              });
          lastStart.add(stored().stats().lastStart());
        });

    h.runUntil(Harness.T0.plusSeconds(25));

    // The paused row holds the run's start from the change on: the mark is written in the
    // transaction, and commits with the pause (a store whose own marks write no last start, as the
    // JDBC store's batched ones, showed none before the transaction's end).
    assertThat(lastStart).containsExactly(Harness.T0, Harness.T0);
    assertThat(stored().state()).isEqualTo(JobState.PAUSED);
    assertThat(h.fires()).containsExactly(0L);
  }

  @Test
  public void reschedule_duringARun_inACallersTransaction_marksTheRunInIt() {
    h.scheduler.schedule(every10s());
    List<JobState> state = new ArrayList<>(); // during the transaction, then after it
    duringFirstRun.set(
        ctx -> {
          callerTransaction(
              () -> {
                h.scheduler.schedule(JobSpec.named("j").handler("h").fixedRate(ofSeconds(7)));
                state.add(stored().state());
              });
          state.add(stored().state());
        });

    h.runUntil(Harness.T0.plusSeconds(15));

    // Marked in the transaction, so a crash right after its commit finds the mark. Before stop 56
    // the mark waited for the transaction's end (SCHEDULED meanwhile), and before that the run
    // stayed unmarked: a crash re-ran its fire without ctx.recovery().
    assertThat(state).containsExactly(JobState.RUNNING, JobState.RUNNING);
    assertThat(stored().state()).isEqualTo(JobState.SCHEDULED);
    assertThat(h.fires()).containsExactly(0L, 0L, 7_000L, 14_000L);
  }

  @Test
  public void pause_duringARun_letsThatRunFinish_andNothingRunsUntilResumed() {
    h.scheduler.schedule(every10s());
    duringFirstRun.set(ctx -> h.scheduler.pause("j"));

    h.runUntil(Harness.T0.plusSeconds(60));

    assertThat(h.fires()).containsExactly(0L);
    assertThat(stored().state()).isEqualTo(JobState.PAUSED);
    assertThat(stored().dueTime()).isNull();
    assertThat(stored().nextFireTime()).isEqualTo(Harness.T0.plusSeconds(10));

    h.scheduler.resume("j");
    h.runUntil(Harness.T0.plusSeconds(60));
    assertThat(h.fires()).hasSize(2); // the missed fires coalesce into one run at resume
    assertThat(h.fires().get(1)).isGreaterThan(0L);
  }

  @Test
  public void triggerNowThenPause_duringARun_leavesNoTriggerInTheStore() {
    h.scheduler.schedule(every10s());
    duringFirstRun.set(
        ctx -> {
          h.scheduler.triggerNow("j");
          h.scheduler.pause("j");
        });

    h.runUntil(Harness.T0.plusSeconds(60));

    assertThat(h.fires()).containsExactly(0L);
    assertThat(h.scheduler.job("j").orElseThrow().state()).isEqualTo(JobState.PAUSED);
    assertThat(stored().dueTime()).as("nothing armed in the paused row").isNull();
  }

  @Test
  public void pause_ofAPausedJobWithAPendingTrigger_clearsTheTrigger() {
    h.scheduler.schedule(every10s());
    h.scheduler.pause("j");
    h.scheduler.triggerNow("j"); // a paused job may be triggered once...
    assertThat(stored().dueTime()).isNotNull();

    h.scheduler.pause("j"); // ...until it is paused again

    assertThat(stored().dueTime()).isNull();
    h.runUntil(Harness.T0.plusSeconds(60));
    assertThat(h.runs).isEmpty();
  }

  @Test
  public void triggerNow_duringARun_runsOnceMore_withoutRepeatingTheTimetableFire() {
    h.scheduler.schedule(every10s());
    duringFirstRun.set(ctx -> h.scheduler.triggerNow("j"));

    h.runUntil(Harness.T0.plusSeconds(25));

    // The trigger's fire is "now" (T0); the timetable fire at T0 is not repeated.
    assertThat(h.fires()).containsExactly(0L, 0L, 10_000L, 20_000L);
    assertThat(h.runs.get(1).actualStart()).isEqualTo(Harness.T0);
  }

  @Test
  public void pauseThenResume_duringTheRunOfAOneShot_completesIt() {
    h.scheduler.schedule(JobSpec.named("j").handler("h").at(Harness.T0.plusSeconds(5)));
    duringFirstRun.set(
        ctx -> {
          h.scheduler.pause("j");
          h.scheduler.resume("j");
        });

    h.runUntil(Harness.T0.plusSeconds(60));

    assertThat(h.fires()).containsExactly(5_000L);
    assertThat(stored().state()).isEqualTo(JobState.COMPLETE);
    assertThat(stored().dueTime()).isNull();
  }

  @Test
  public void reschedule_duringARun_takesTheNewTimetable() {
    h.scheduler.schedule(every10s());
    duringFirstRun.set(
        ctx -> h.scheduler.schedule(JobSpec.named("j").handler("h").fixedRate(ofSeconds(7))));

    h.runUntil(Harness.T0.plusSeconds(25));

    // A new definition starts a new timetable at once, as schedule() does for any new job.
    assertThat(h.fires()).containsExactly(0L, 0L, 7_000L, 14_000L, 21_000L);
  }

  @Test
  public void unschedule_duringARun_thenScheduleAgain_firesTheNewJob() {
    h.scheduler.schedule(every10s());
    duringFirstRun.set(ctx -> h.scheduler.unschedule("j"));
    h.runUntil(Harness.T0.plusSeconds(5));
    assertThat(h.fires()).containsExactly(0L);

    h.scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(ofSeconds(10))
            .startAt(Harness.T0.plusSeconds(10)));
    h.runUntil(Harness.T0.plusSeconds(25));

    assertThat(h.fires()).containsExactly(0L, 10_000L, 20_000L);
  }

  @Test
  public void unschedule_duringARun_removesTheJob() {
    h.scheduler.schedule(every10s());
    duringFirstRun.set(ctx -> h.scheduler.unschedule("j"));

    h.runUntil(Harness.T0.plusSeconds(60));

    assertThat(h.fires()).containsExactly(0L);
    assertThat(h.store.find("j")).isEmpty();
  }
}
