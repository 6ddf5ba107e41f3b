package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The misfire rule as a table: (policy, how late) → what runs and what comes next. */
class MisfireRuleTest {
  private static final Instant MON_0200 = Instant.parse("2026-01-05T02:00:00Z");
  private static final Timetable DAILY =
      Timetables.of(
          JobSpec.named("d").handler("h").fixedRate(Duration.ofDays(1)).startAt(MON_0200));
  private static final Instant THU_0900 = Instant.parse("2026-01-08T09:00:00Z");

  static Stream<Arguments> downtime() {
    // Down from Monday 01:00 to Thursday 09:00: Mon, Tue, Wed, Thu 02:00 were missed.
    return Stream.of(
        Arguments.of(Misfire.catchUp(), "2026-01-05T02:00:00Z", 1, 0L, null),
        Arguments.of(Misfire.catchUp(2), "2026-01-07T02:00:00Z", 1, 2L, null),
        Arguments.of(Misfire.catchUp(4), "2026-01-05T02:00:00Z", 1, 0L, null),
        Arguments.of(Misfire.catchUp(9), "2026-01-05T02:00:00Z", 1, 0L, null),
        Arguments.of(Misfire.fireOnce(), "2026-01-08T02:00:00Z", 4, 3L, null),
        Arguments.of(Misfire.skip(), null, 0, 4L, "2026-01-09T02:00:00Z"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("downtime")
  void decide_afterDowntime(Misfire policy, String runs, int missed, long dropped, String next) {
    MisfireRule.Decision d = MisfireRule.decide(DAILY, MON_0200, THU_0900, policy);

    assertThat(d.fire()).isEqualTo(runs == null ? null : Instant.parse(runs));
    assertThat(d.missedFires()).isEqualTo(missed);
    assertThat(d.dropped()).isEqualTo(dropped);
    assertThat(d.nextWhenNoRun())
        .isEqualTo(next == null ? Optional.empty() : Optional.of(Instant.parse(next)));
  }

  static Stream<Arguments> threshold() {
    return Stream.of(
        // late by, threshold, behind?
        Arguments.of(0L, 1000L, false),
        Arguments.of(1000L, 1000L, false),
        Arguments.of(1001L, 1000L, true),
        Arguments.of(1L, 0L, true),
        Arguments.of(0L, 0L, false));
  }

  @ParameterizedTest(name = "late {0} ms, threshold {1} ms → behind {2}")
  @MethodSource("threshold")
  void isBehind_boundaries(long lateMs, long thresholdMs, boolean behind) {
    assertThat(
            MisfireRule.isBehind(
                MON_0200, MON_0200.plusMillis(lateMs), Duration.ofMillis(thresholdMs)))
        .isEqualTo(behind);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void decide_withinThreshold_runsTheDueFireNormally(Misfire policy) {
    MisfireRule.Decision d = MisfireRule.decide(DAILY, MON_0200, MON_0200.plusMillis(999), policy);

    assertThat(d.fire()).isEqualTo(MON_0200);
    assertThat(d.missedFires()).isZero();
    assertThat(d.dropped()).isZero();
  }

  static Stream<Misfire> policies() {
    return Stream.of(Misfire.catchUp(), Misfire.catchUp(1), Misfire.fireOnce(), Misfire.skip());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void decide_oneShotBehind(Misfire policy) {
    Instant at = MON_0200;
    Timetable once = Timetables.of(JobSpec.named("o").handler("h").at(at));

    MisfireRule.Decision d = MisfireRule.decide(once, at, THU_0900, policy);

    if (policy instanceof Misfire.Skip) {
      assertThat(d.runs()).isFalse();
      assertThat(d.nextWhenNoRun()).isEmpty();
    } else {
      assertThat(d.fire()).isEqualTo(at);
    }
  }

  @Test
  void decide_oneShotOlderThanTheCatchUpWindow_dropsItsFireAndHasNoNext() {
    Instant at = MON_0200;
    Timetable once = Timetables.of(JobSpec.named("o").handler("h").at(at));

    MisfireRule.Decision older =
        MisfireRule.decide(once, at, THU_0900, Misfire.catchUp().within(Duration.ofHours(1)));
    MisfireRule.Decision inside =
        MisfireRule.decide(once, at, THU_0900, Misfire.catchUp().within(Duration.ofDays(4)));

    assertThat(older.runs()).isFalse();
    assertThat(older.dropped()).isEqualTo(1);
    assertThat(older.nextWhenNoRun()).isEmpty(); // so the engine completes it (README, misfires)
    assertThat(inside.fire()).isEqualTo(at);
    assertThat(inside.dropped()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void decide_farBehindPerSecondRate_isArithmeticNotAWalk(Misfire policy) {
    Timetable perSecond =
        Timetables.of(
            JobSpec.named("s").handler("h").fixedRate(Duration.ofSeconds(1)).startAt(MON_0200));
    Instant yearLater = MON_0200.plus(Duration.ofDays(365));

    MisfireRule.Decision d = MisfireRule.decide(perSecond, MON_0200, yearLater, policy);

    long fires = Duration.ofDays(365).toSeconds() + 1;
    if (policy instanceof Misfire.FireOnce) {
      assertThat(d.fire()).isEqualTo(yearLater);
      assertThat(d.missedFires()).isEqualTo((int) fires);
    } else if (policy instanceof Misfire.Skip) {
      assertThat(d.nextWhenNoRun()).contains(yearLater.plusSeconds(1));
    } else if (policy.equals(Misfire.catchUp(1))) {
      assertThat(d.fire()).isEqualTo(yearLater);
      assertThat(d.dropped()).isEqualTo(fires - 1);
    } else {
      assertThat(d.fire()).isEqualTo(MON_0200);
    }
  }

  static Stream<Arguments> catchUpWindow() {
    // The same downtime: Mon, Tue, Wed, Thu 02:00 missed; judged Thursday 09:00.
    Duration h7 = Duration.ofHours(7); // Thu 02:00 is exactly 7 h old: inside the window
    return Stream.of(
        Arguments.of(
            Misfire.catchUp().within(Duration.ofDays(4)), "2026-01-05T02:00:00Z", 0L, null),
        Arguments.of(
            Misfire.catchUp().within(Duration.ofDays(2)), "2026-01-07T02:00:00Z", 2L, null),
        Arguments.of(Misfire.catchUp().within(h7), "2026-01-08T02:00:00Z", 3L, null),
        Arguments.of(Misfire.catchUp().within(h7.minusNanos(1)), null, 4L, "2026-01-09T02:00:00Z"),
        Arguments.of(
            Misfire.catchUp().within(Duration.ofHours(1)), null, 4L, "2026-01-09T02:00:00Z"),
        Arguments.of(
            Misfire.catchUp(1).within(Duration.ofDays(2)), "2026-01-08T02:00:00Z", 3L, null),
        Arguments.of(
            Misfire.catchUp(3).within(Duration.ofDays(2)), "2026-01-07T02:00:00Z", 2L, null),
        Arguments.of(
            Misfire.catchUp(3).within(Duration.ofDays(9)), "2026-01-06T02:00:00Z", 1L, null),
        Arguments.of(
            Misfire.catchUp(3).within(Duration.ofHours(1)), null, 4L, "2026-01-09T02:00:00Z"),
        Arguments.of(
            Misfire.catchUp().within(java.time.temporal.ChronoUnit.FOREVER.getDuration()),
            "2026-01-05T02:00:00Z",
            0L,
            null));
  }

  /** A catch-up window drops the fires scheduled more than the window before now; boundary kept. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("catchUpWindow")
  void decide_catchUpWindow_afterDowntime(Misfire policy, String runs, long dropped, String next) {
    MisfireRule.Decision d = MisfireRule.decide(DAILY, MON_0200, THU_0900, policy);

    assertThat(d.fire()).isEqualTo(runs == null ? null : Instant.parse(runs));
    assertThat(d.missedFires()).isEqualTo(runs == null ? 0 : 1);
    assertThat(d.dropped()).isEqualTo(dropped);
    assertThat(d.nextWhenNoRun())
        .isEqualTo(next == null ? Optional.empty() : Optional.of(Instant.parse(next)));
  }

  @Test
  void decide_catchUpWindow_withinThreshold_dropsNothing() {
    Misfire policy = Misfire.catchUp().within(Duration.ofMillis(10));

    MisfireRule.Decision d = MisfireRule.decide(DAILY, MON_0200, MON_0200.plusMillis(999), policy);

    assertThat(d.fire()).isEqualTo(MON_0200);
    assertThat(d.dropped()).isZero();
  }

  @Test
  void decide_catchUpWindow_farBehindPerSecondRate_isArithmetic() {
    Timetable perSecond =
        Timetables.of(
            JobSpec.named("s").handler("h").fixedRate(Duration.ofSeconds(1)).startAt(MON_0200));
    Instant yearLater = MON_0200.plus(Duration.ofDays(365));

    MisfireRule.Decision d =
        MisfireRule.decide(
            perSecond, MON_0200, yearLater, Misfire.catchUp().within(Duration.ofHours(1)));

    long fires = Duration.ofDays(365).toSeconds() + 1;
    assertThat(d.fire()).isEqualTo(yearLater.minusSeconds(3600));
    assertThat(d.dropped()).isEqualTo(fires - 3601);
  }

  private static final java.util.function.UnaryOperator<Instant> FORTY_MINUTES =
      t -> t.plus(Duration.ofMinutes(40));

  static Stream<Arguments> jitteredNewestNotYetDue() {
    // Mon 02:00 missed; judged Tue 02:10: Tue's slot has passed but it is due only at 02:40.
    return Stream.of(
        Arguments.of(Misfire.skip(), null, 0, 1L, "2026-01-06T02:00:00Z"),
        Arguments.of(Misfire.fireOnce(), "2026-01-05T02:00:00Z", 1, 0L, null),
        Arguments.of(Misfire.catchUp(1), "2026-01-05T02:00:00Z", 1, 0L, null),
        Arguments.of(
            Misfire.catchUp().within(Duration.ofHours(1)), null, 0, 1L, "2026-01-06T02:00:00Z"));
  }

  /**
   * A fire whose slot has passed but whose jittered due time has not is not missed: no policy runs
   * it early, drops it or lets a run stand for it; it runs at its due time.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("jitteredNewestNotYetDue")
  void decide_jitteredNewestFireNotYetDue_isNotMissed(
      Misfire policy, String runs, int missed, long dropped, String next) {
    Instant tue0210 = Instant.parse("2026-01-06T02:10:00Z");

    MisfireRule.Decision d = MisfireRule.decide(DAILY, MON_0200, FORTY_MINUTES, tue0210, policy);

    assertThat(d.fire()).isEqualTo(runs == null ? null : Instant.parse(runs));
    assertThat(d.missedFires()).isEqualTo(missed);
    assertThat(d.dropped()).isEqualTo(dropped);
    assertThat(d.nextWhenNoRun())
        .isEqualTo(next == null ? Optional.empty() : Optional.of(Instant.parse(next)));
  }

  static Stream<Arguments> jitteredLateness() {
    // A daily fire at Mon 02:00 due (jittered) 40 minutes later; threshold 1 s.
    return Stream.of(
        // policy, ms after the due time, runs, missed fires
        Arguments.of(Misfire.skip(), 0L, true, 0),
        Arguments.of(Misfire.skip(), 1000L, true, 0),
        Arguments.of(Misfire.skip(), 1001L, false, 0),
        Arguments.of(Misfire.fireOnce(), 999L, true, 0),
        Arguments.of(Misfire.fireOnce(), 1001L, true, 1),
        Arguments.of(Misfire.catchUp().within(Duration.ofMinutes(30)), 999L, true, 0),
        Arguments.of(Misfire.catchUp().within(Duration.ofMinutes(30)), 1001L, false, 0),
        Arguments.of(Misfire.catchUp().within(Duration.ofMinutes(41)), 1001L, true, 1));
  }

  /**
   * Lateness is measured from the jittered due time, not the scheduled fire time: a fire 40 minutes
   * after its slot but on time for its due time runs normally. Once behind, a catch-up window ages
   * fires by their scheduled time.
   */
  @ParameterizedTest(name = "{0}, {1} ms after due")
  @MethodSource("jitteredLateness")
  void decide_jitteredFire_isJudgedFromItsDueTime(
      Misfire policy, long msAfterDue, boolean runs, int missed) {
    Instant due = MON_0200.plus(Duration.ofMinutes(40));

    MisfireRule.Decision d =
        MisfireRule.decide(DAILY, MON_0200, FORTY_MINUTES, due.plusMillis(msAfterDue), policy);

    assertThat(d.runs()).isEqualTo(runs);
    if (runs) {
      assertThat(d.fire()).isEqualTo(MON_0200);
      assertThat(d.missedFires()).isEqualTo(missed);
    } else {
      assertThat(d.dropped()).isEqualTo(1);
      assertThat(d.nextWhenNoRun()).contains(MON_0200.plus(Duration.ofDays(1)));
    }
  }
}
