package dev.kairos.engine.internal;

import static dev.kairos.engine.internal.Harness.T0;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.RunRecord;
import dev.kairos.spi.BackfillSlot;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code Scheduler.backfill}: slots, order, idempotence, refusals; step API, manual clock. */
class BackfillTest {

  private static Instant t(Duration d) {
    return T0.plus(d);
  }

  private static List<Instant> slots(Harness h) {
    return h.runs.stream().map(JobContext::scheduledFireTime).toList();
  }

  /** A fixed-rate job anchored at a start instant two days back, so its slots are known. */
  private static Harness hourly() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(
        JobSpec.named("report").handler("h").fixedRate(ofHours(1)).startAt(t(ofHours(-48))));
    return h;
  }

  @Test
  void fixedRate_windowStartInclusiveEndExclusive_runsEachSlotInOrderAsBackfill() {
    Harness h = hourly();

    int queued = h.scheduler.backfill("report", t(ofHours(-5)), t(ofHours(-2)));
    int ran = h.scheduler.runBackfill();

    assertThat(queued).isEqualTo(3);
    assertThat(ran).isEqualTo(3);
    assertThat(slots(h)).containsExactly(t(ofHours(-5)), t(ofHours(-4)), t(ofHours(-3)));
    assertThat(h.runs).allSatisfy(ctx -> assertThat(ctx.backfill()).isTrue());
    assertThat(h.runs).allSatisfy(ctx -> assertThat(ctx.attempt()).isEqualTo(1));
    assertThat(h.scheduler.history("report", 10))
        .extracting(RunRecord::scheduledFireTime, RunRecord::backfill)
        .containsExactly(
            tuple(t(ofHours(-3)), true), tuple(t(ofHours(-4)), true), tuple(t(ofHours(-5)), true));
  }

  @Test
  void fixedRate_windowBetweenSlots_startsAtTheNextSlot() {
    Harness h = hourly();

    h.scheduler.backfill("report", t(ofMinutes(-299)), t(ofMinutes(-120)).plusNanos(1));
    h.scheduler.runBackfill();

    assertThat(slots(h)).containsExactly(t(ofHours(-4)), t(ofHours(-3)), t(ofHours(-2)));
  }

  @Test
  void fixedRate_startInstant_noSlotBeforeIt() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(
        JobSpec.named("late").handler("h").fixedRate(ofHours(1)).startAt(t(ofHours(-2))));

    h.scheduler.backfill("late", t(ofHours(-6)), T0);
    h.scheduler.runBackfill();

    assertThat(slots(h)).containsExactly(t(ofHours(-2)), t(ofHours(-1)));
  }

  @Test
  void fixedRate_withoutStartInstant_anchoredAtTheStoredFireTimes() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(
        JobSpec.named("rate").handler("h").fixedRate(ofHours(1)).initialDelay(ofMinutes(30)));
    h.clock.set(t(ofHours(3))); // the next fire stays T0 + 30 min until it runs

    h.scheduler.backfill("rate", t(ofHours(-1)), t(ofHours(2)));
    h.scheduler.runBackfill();

    assertThat(slots(h)).containsExactly(t(ofMinutes(-30)), t(ofMinutes(30)), t(ofMinutes(90)));
  }

  @Test
  void cron_everyMatchInTheWindow() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(JobSpec.named("cron").handler("h").cron("0 0 * * * ?", ZoneOffset.UTC));

    h.scheduler.backfill("cron", t(ofHours(-3)), t(ofHours(-1)));
    h.scheduler.backfill("cron", t(ofHours(-1)).plusSeconds(1), T0); // no match in it

    h.scheduler.runBackfill();
    assertThat(slots(h)).containsExactly(t(ofHours(-3)), t(ofHours(-2)));
  }

  @Test
  void oneShot_itsFireIfInsideTheWindow() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(JobSpec.named("once").handler("h").at(t(ofHours(1))));
    h.clock.set(t(ofHours(2)));

    assertThat(h.scheduler.backfill("once", T0, t(ofHours(1)))).isZero();
    assertThat(h.scheduler.backfill("once", T0, t(ofHours(2)))).isEqualTo(1);
    h.scheduler.runBackfill();

    assertThat(slots(h)).containsExactly(t(ofHours(1)));
  }

  @Test
  void secondCall_sameOrOverlappingWindow_queuesOnlyNewSlots() {
    Harness h = hourly();

    assertThat(h.scheduler.backfill("report", t(ofHours(-5)), t(ofHours(-2)))).isEqualTo(3);
    assertThat(h.scheduler.backfill("report", t(ofHours(-5)), t(ofHours(-2)))).isZero();
    h.scheduler.runBackfill();
    assertThat(h.scheduler.backfill("report", t(ofHours(-6)), t(ofHours(-3)))).isEqualTo(1);
    h.scheduler.runBackfill();

    assertThat(slots(h))
        .containsExactly(t(ofHours(-5)), t(ofHours(-4)), t(ofHours(-3)), t(ofHours(-6)));
    assertThat(h.scheduler.runBackfill()).isZero();
  }

  @Test
  void regularRuns_areNotBackfill_andTheScheduleIsNotMoved() {
    Harness h = hourly();
    h.scheduler.backfill("report", t(ofHours(-2)), T0);
    h.scheduler.runBackfill();

    h.runUntil(T0);

    assertThat(h.runs).hasSize(3);
    assertThat(h.runs.get(2).backfill()).isFalse();
    assertThat(h.runs.get(2).scheduledFireTime()).isEqualTo(T0);
    assertThat(h.scheduler.history("report", 10))
        .extracting(RunRecord::scheduledFireTime, RunRecord::backfill)
        .containsExactly(
            tuple(T0, false), tuple(t(ofHours(-1)), true), tuple(t(ofHours(-2)), true));
  }

  @Test
  void pausedJob_slotsWaitUntilResume() {
    Harness h = hourly();
    h.scheduler.backfill("report", t(ofHours(-2)), T0);
    h.scheduler.pause("report");

    assertThat(h.scheduler.runBackfill()).isZero();
    h.scheduler.resume("report");

    assertThat(h.scheduler.runBackfill()).isEqualTo(2);
  }

  @Test
  void unschedule_deletesTheQueuedSlots() {
    Harness h = hourly();
    h.scheduler.backfill("report", t(ofHours(-2)), T0);

    h.scheduler.unschedule("report");

    assertThat(h.store.backfillSlots("report")).isEmpty();
    assertThat(h.scheduler.runBackfill()).isZero();
  }

  @Test
  void failingRun_isRecordedAndTheNextSlotStillRuns() {
    Harness h =
        new Harness(
            ctx -> {
              if (ctx.scheduledFireTime().equals(t(ofHours(-2)))) {
                throw new IllegalStateException("boom");
              }
            });
    h.scheduler.schedule(
        JobSpec.named("r").handler("h").fixedRate(ofHours(1)).startAt(t(ofHours(-9))));
    h.scheduler.backfill("r", t(ofHours(-2)), T0);

    assertThat(h.scheduler.runBackfill()).isEqualTo(2);

    assertThat(h.store.backfillSlots("r"))
        .extracting(BackfillSlot::state)
        .containsOnly(BackfillSlot.State.DONE);
    assertThat(h.scheduler.history("r", 10).get(1).error()).contains("boom");
  }

  @Test
  void badInput_refusedNamingKeyAndValue() {
    Harness h = hourly();
    h.scheduler.schedule(JobSpec.named("delay").handler("h").fixedDelay(ofMinutes(5)));
    h.scheduler.schedule(JobSpec.named("fast").handler("h").fixedRate(Duration.ofSeconds(1)));

    assertThatThrownBy(() -> h.scheduler.backfill("nope", t(ofHours(-1)), T0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'nope'");
    assertThatThrownBy(() -> h.scheduler.backfill("report", T0, t(ofHours(-1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'report'")
        .hasMessageContaining("from " + T0 + " is after to " + t(ofHours(-1)));
    assertThatThrownBy(() -> h.scheduler.backfill("report", t(ofHours(-1)), t(ofHours(1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'report'")
        .hasMessageContaining(t(ofHours(1)) + " is in the future");
    assertThatThrownBy(() -> h.scheduler.backfill("delay", t(ofHours(-1)), T0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'delay'")
        .hasMessageContaining("fixed-delay");
    assertThatThrownBy(() -> h.scheduler.backfill("fast", t(ofHours(-48)), T0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'fast'")
        .hasMessageContaining("100000");
    assertThat(h.store.backfillSlots("fast")).isEmpty();
  }

  @Test
  void emptyWindow_queuesNothing() {
    Harness h = hourly();

    assertThat(h.scheduler.backfill("report", t(ofHours(-1)), t(ofHours(-1)))).isZero();
  }

  /** The README's worked example. */
  @Test
  void readmeExample_sixHourlyReport() {
    Harness h = new Harness(ctx -> {});
    Instant jan = Instant.parse("2026-01-01T00:00:00Z");
    h.clock.set(Instant.parse("2026-01-09T12:00:00Z"));
    h.scheduler.schedule(JobSpec.named("report").handler("h").fixedRate(ofHours(6)).startAt(jan));
    Instant jan5 = Instant.parse("2026-01-05T00:00:00Z");

    assertThat(h.scheduler.backfill("report", jan5, jan5.plus(ofHours(24)))).isEqualTo(4);
    assertThat(h.scheduler.backfill("report", jan5, jan5.plus(ofHours(24)))).isZero();
    assertThat(h.scheduler.backfill("report", jan5.plus(ofHours(12)), jan5.plus(ofHours(36))))
        .isEqualTo(2);
    assertThatThrownBy(
            () -> h.scheduler.backfill("report", jan5, Instant.parse("2026-01-10T00:00:00Z")))
        .hasMessageContaining("in the future");
    h.scheduler.runBackfill();

    assertThat(slots(h))
        .containsExactly(
            jan5,
            jan5.plus(ofHours(6)),
            jan5.plus(ofHours(12)),
            jan5.plus(ofHours(18)),
            jan5.plus(ofHours(24)),
            jan5.plus(ofHours(30)));
  }
}
