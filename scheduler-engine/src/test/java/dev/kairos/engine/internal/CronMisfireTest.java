package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.Misfire;
import dev.kairos.Schedule;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The misfire rule over a cron timetable: a daily 02:00 UTC job, down from Monday 01:00 to Thursday
 * 09:00, missed Monday to Thursday (four fires).
 */
class CronMisfireTest {
  private static final Instant MONDAY = Instant.parse("2024-01-08T02:00:00Z");
  private static final Instant WEDNESDAY = Instant.parse("2024-01-10T02:00:00Z");
  private static final Instant THURSDAY = Instant.parse("2024-01-11T02:00:00Z");
  private static final Instant FRIDAY = Instant.parse("2024-01-12T02:00:00Z");
  private static final Instant BACK_UP = Instant.parse("2024-01-11T09:00:00Z");

  private final Timetable daily =
      CronTimetable.of(
          new Schedule.Cron("0 0 2 * * ?", ZoneOffset.UTC, CronSyntax.QUARTZ, DstPolicy.defaults()),
          Instant.parse("2024-01-08T01:00:00Z"));

  @Test
  void decide_catchUp_runsMondayFirst() {
    MisfireRule.Decision d = MisfireRule.decide(daily, MONDAY, BACK_UP, Misfire.catchUp());

    assertThat(d.fire()).isEqualTo(MONDAY);
    assertThat(d.missedFires()).isEqualTo(1);
    assertThat(d.dropped()).isZero();
  }

  @Test
  void decide_catchUpTwo_dropsMondayAndTuesdayAndRunsWednesday() {
    MisfireRule.Decision d = MisfireRule.decide(daily, MONDAY, BACK_UP, Misfire.catchUp(2));

    assertThat(d.fire()).isEqualTo(WEDNESDAY);
    assertThat(d.missedFires()).isEqualTo(1);
    assertThat(d.dropped()).isEqualTo(2);
  }

  @Test
  void decide_fireOnce_runsThursdayStandingForFour() {
    MisfireRule.Decision d = MisfireRule.decide(daily, MONDAY, BACK_UP, Misfire.fireOnce());

    assertThat(d.fire()).isEqualTo(THURSDAY);
    assertThat(d.missedFires()).isEqualTo(4);
    assertThat(d.dropped()).isEqualTo(3);
  }

  @Test
  void decide_skip_runsNothingAndWaitsForFriday() {
    MisfireRule.Decision d = MisfireRule.decide(daily, MONDAY, BACK_UP, Misfire.skip());

    assertThat(d.runs()).isFalse();
    assertThat(d.dropped()).isEqualTo(4);
    assertThat(d.nextWhenNoRun()).contains(FRIDAY);
  }

  @Test
  void decide_withinThreshold_runsOnTime() {
    MisfireRule.Decision d =
        MisfireRule.decide(daily, MONDAY, MONDAY.plusMillis(500), Misfire.skip());

    assertThat(d.fire()).isEqualTo(MONDAY);
    assertThat(d.missedFires()).isZero();
  }
}
