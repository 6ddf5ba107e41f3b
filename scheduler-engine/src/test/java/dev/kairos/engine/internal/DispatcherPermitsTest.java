package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.ConcurrencyLimit;
import dev.kairos.JobSpec;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's concurrency-limit state, stepped from the test thread over a {@link ManualClock}
 * through {@code poll()}, {@code finish()} and {@code changed()}: no worker threads.
 */
class DispatcherPermitsTest {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");

  private final ManualClock clock = new ManualClock(T0.plusMillis(10)); // all four due

  private Dispatcher dispatcher(int permits) {
    Dispatcher d = new Dispatcher(clock, 10_000, List.of(ConcurrencyLimit.of("h", permits)));
    Instant until = T0.plus(Duration.ofDays(1));
    d.beginLoad(until);
    d.endLoad(
        List.of(
            job("j1", T0), job("j2", T0), job("j3", T0.plusMillis(1)), job("j4", T0.plusMillis(2))),
        until,
        null,
        until);
    return d;
  }

  private static JobRecord job(String key, Instant due) {
    return JobRecord.fresh(JobSpec.named(key).handler("h").at(due), due);
  }

  private static String key(Entry e) {
    return e == null ? null : e.key;
  }

  /**
   * A full limit parks due fires (still queued, not running); each finish hands its permit to the
   * earliest waiting fire; a waiting fire that is unscheduled leaves the queue and is never run.
   */
  @Test
  void fullLimit_parksFires_finishHandsThePermitOn_unscheduledWaiterLeaves() {
    Dispatcher d = dispatcher(1);
    Entry j1 = d.poll();
    assertThat(key(j1)).isEqualTo("j1");
    assertThat(d.poll()).isNull();
    assertThat(d.queued()).isEqualTo(3);
    assertThat(d.running()).isEqualTo(1);

    d.changed("j2", null); // unscheduled while waiting
    d.finish(j1, null);
    Entry j3 = d.poll();
    assertThat(key(j3)).isEqualTo("j3");
    assertThat(d.poll()).isNull();

    d.finish(j3, null);
    assertThat(key(d.poll())).isEqualTo("j4");
    assertThat(d.queued()).isZero();
  }

  /**
   * Backfill runs share the limit: a backfill permit is refused while regular fires hold or wait
   * for every permit (regular fires come first), and the backfill runner is woken exactly when a
   * permit becomes free with no regular fire waiting; a permit a backfill run gives back goes to
   * the earliest waiting regular fire.
   */
  @Test
  void backfillPermit_sharedWithRegularFires_regularFirst_wokenWhenOneFrees() {
    Dispatcher d = dispatcher(1);
    java.util.concurrent.atomic.AtomicInteger wakes =
        new java.util.concurrent.atomic.AtomicInteger();
    d.onPermitFreed(wakes::incrementAndGet);
    assertThat(d.takeBackfillPermit("other")).as("a handler without a limit").isTrue();

    Entry j1 = d.poll();
    assertThat(d.poll()).isNull(); // j2, j3, j4 wait
    assertThat(d.takeBackfillPermit("h")).isFalse();
    d.finish(j1, null); // handed to j2: no wake
    assertThat(wakes).hasValue(0);
    assertThat(d.takeBackfillPermit("h")).as("j2 holds it, j3 and j4 wait").isFalse();
    d.finish(d.poll(), null);
    d.finish(d.poll(), null);
    Entry j4 = d.poll();
    assertThat(key(j4)).isEqualTo("j4");
    assertThat(wakes).hasValue(0);
    d.finish(j4, null); // free, and the backfill run asked: woken once
    assertThat(wakes).hasValue(1);

    assertThat(d.takeBackfillPermit("h")).isTrue();
    d.changed("j5", job("j5", T0)); // due now, but the backfill run holds the permit
    assertThat(d.poll()).isNull();
    d.releaseBackfillPermit("h");
    assertThat(key(d.poll())).isEqualTo("j5");
    assertThat(wakes).as("not asked again: no wake").hasValue(1);
  }

  /**
   * A truncated window is reloaded when fewer than half a window of fires are queued: fires waiting
   * for a permit count as queued, or a backlog of waiting fires would have every poll load another
   * window (the whole table, in the end) while the heap stays empty.
   */
  @Test
  void truncatedWindow_firesWaitingForAPermitCountAsQueued_noReloadWhileHalfAWindowWaits() {
    Dispatcher d = new Dispatcher(clock, 4, List.of(ConcurrencyLimit.of("h", 1)));
    Instant until = T0.plus(Duration.ofDays(1));
    d.beginLoad(until);
    List<JobRecord> page =
        List.of(
            job("j1", T0), job("j2", T0), job("j3", T0.plusMillis(1)), job("j4", T0.plusMillis(2)));
    d.endLoad(page, until, page.get(3).cursor(), until); // a full page: the window is truncated
    assertThat(key(d.poll())).isEqualTo("j1");
    assertThat(d.poll()).as("three wait for the permit: no load").isNull();
    assertThat(d.queued()).isEqualTo(3);
  }

  /**
   * Cluster mode: after a claim refused because the limit is full in the cluster, no waiting fire
   * is admitted or handed a permit until the back-off ends (the leader's deadline includes it);
   * then the free permits go to the earliest waiting fires.
   */
  @Test
  void clusterBackOff_holdsWaitersUntilItEnds_thenEarliestDueFirst() {
    Dispatcher d = dispatcher(2);
    Entry j1 = d.poll();
    Entry j2 = d.poll();
    assertThat(List.of(key(j1), key(j2))).containsExactly("j1", "j2");
    assertThat(d.poll()).isNull(); // j3, j4 wait

    Instant until = T0.plusMillis(260);
    d.limitFull(j1, until);
    d.finish(j1, j1.record); // re-queued at the back-off's end; its permit not handed on
    assertThat(d.poll()).isNull();
    assertThat(d.nextWakeUp()).isEqualTo(until);

    clock.set(until);
    assertThat(key(d.poll())).isEqualTo("j3"); // the free permit, earliest due first
    assertThat(d.poll()).isNull(); // j1 (due again now) and j4 wait: both permits held
    d.finish(j2, null);
    assertThat(key(d.poll())).isEqualTo("j4");
  }
}
