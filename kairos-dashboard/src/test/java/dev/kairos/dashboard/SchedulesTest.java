package dev.kairos.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.JobInfo;
import dev.kairos.engine.CronPreview;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Calendars in words, and a stored job's upcoming fires with its calendar applied. */
class SchedulesTest {
  private static final ZoneId UTC = ZoneId.of("UTC");
  private final CalendarFixture fixture = new CalendarFixture();

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private JobInfo job(String key) {
    return fixture.scheduler.job(key).orElseThrow();
  }

  @Test
  void describe_calendar_namesDaysWindowDatesAndZone() {
    assertThat(Schedules.describe(BusinessCalendar.in(UTC))).isEqualTo("every day (UTC)");
    assertThat(
            Schedules.describe(BusinessCalendar.in(UTC).days(DayOfWeek.SATURDAY, DayOfWeek.MONDAY)))
        .isEqualTo("Monday and Saturday (UTC)");
    BusinessCalendar holidays =
        BusinessCalendar.in(UTC)
            .excluding(
                IntStream.rangeClosed(1, 7).mapToObj(d -> LocalDate.of(2026, 12, 20 + d)).toList());
    assertThat(Schedules.describe(holidays))
        .isEqualTo(
            "every day, except 2026-12-21, 2026-12-22, 2026-12-23, 2026-12-24, 2026-12-25"
                + " and 2 more dates (UTC)");
  }

  @Test
  void describe_policy_saysWhatHappensToAnExcludedFire() {
    assertThat(Schedules.describe(CalendarPolicy.SKIP)).isEqualTo("skip excluded fires");
    assertThat(Schedules.describe(CalendarPolicy.NEXT_ALLOWED))
        .isEqualTo("move excluded fires to the next allowed time");
  }

  @Test
  void upcoming_skipCalendar_startsAtTheStoredFire_andListsTheSkippedSlots() {
    Schedules.Upcoming u = Schedules.upcoming(job("settle"), fixture.scheduler::calendar, 3);
    assertThat(u.problem()).isEmpty();
    assertThat(u.fires())
        .extracting(CronPreview.Fire::fire)
        .containsExactly(
            Instant.parse("2026-01-02T08:00:00Z"),
            Instant.parse("2026-01-05T08:00:00Z"),
            Instant.parse("2026-01-07T08:00:00Z"));
    assertThat(u.fires().get(2).excluded()).containsExactly(Instant.parse("2026-01-06T08:00:00Z"));
  }

  /** The stored fire a calendar moved (not a slot of the timetable) still comes first. */
  @Test
  void upcoming_movedStoredFire_comesFirst() {
    Schedules.Upcoming u = Schedules.upcoming(job("export"), fixture.scheduler::calendar, 2);
    assertThat(u.fires())
        .extracting(CronPreview.Fire::fire)
        .containsExactly(
            Instant.parse("2026-01-05T07:00:00Z"), Instant.parse("2026-01-06T07:00:00Z"));
  }

  @Test
  void upcoming_missingCalendar_givesTheStoredFireAndAProblemNamingIt() {
    Schedules.Upcoming u = Schedules.upcoming(job("orphan"), name -> Optional.empty(), 10);
    assertThat(u.problem()).hasValueSatisfying(p -> assertThat(p).contains("calendar 'gone'"));
    assertThat(u.fires())
        .extracting(CronPreview.Fire::fire)
        .containsExactly(Instant.parse("2026-01-02T08:00:00Z"));
  }

  @Test
  void upcoming_noneAsked_isEmpty() {
    assertThat(Schedules.upcoming(job("poll"), fixture.scheduler::calendar, 0).fires()).isEmpty();
  }
}
