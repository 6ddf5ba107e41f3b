package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.JobSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A timetable seen through a calendar, as a pure function: the fires a job scheduled at a given
 * instant has, for each schedule kind, policy, zone and rule. Instants are read from the table;
 * 2026-01-05 is a Monday, 2026-01-06 (Epiphany) the holiday of the calendars below.
 */
class CalendarTimetableTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final LocalDate EPIPHANY = LocalDate.of(2026, 1, 6);

  private static Instant t(String s) {
    return Instant.parse(s);
  }

  private static List<Instant> fires(
      JobSpec spec, BusinessCalendar c, CalendarPolicy policy, Instant from, int n) {
    Timetable tt = Timetables.of(spec.excluding("c", policy), name -> Optional.of(c));
    List<Instant> out = new ArrayList<>();
    Optional<Instant> f = tt.first(from);
    while (f.isPresent() && out.size() < n) {
      out.add(f.get());
      f = tt.successor(f.get());
    }
    return out;
  }

  static Stream<Arguments> table() {
    JobSpec nineBerlin = JobSpec.named("j").handler("h").cron("0 0 9 * * ?", BERLIN);
    JobSpec eightPmBerlin = JobSpec.named("j").handler("h").cron("0 0 20 * * ?", BERLIN);
    BusinessCalendar desk = BusinessCalendar.in(BERLIN).weekdays().excluding(EPIPHANY);
    BusinessCalendar hours = desk.between(LocalTime.of(8, 0), LocalTime.of(18, 0));
    BusinessCalendar utcWeekdays = BusinessCalendar.in(ZoneOffset.UTC).weekdays();
    return Stream.of(
        Arguments.of(
            "holiday skipped (cron, Berlin)",
            nineBerlin,
            desk,
            CalendarPolicy.SKIP,
            t("2026-01-05T00:00:00Z"),
            List.of(
                t("2026-01-05T08:00:00Z"),
                t("2026-01-07T08:00:00Z"),
                t("2026-01-08T08:00:00Z"),
                t("2026-01-09T08:00:00Z"),
                t("2026-01-12T08:00:00Z"))),
        Arguments.of(
            "next allowed: after hours moves to the next business day's window start, holiday"
                + " passed over",
            eightPmBerlin,
            hours,
            CalendarPolicy.NEXT_ALLOWED,
            t("2026-01-05T00:00:00Z"),
            List.of(
                t("2026-01-07T07:00:00Z"), // Monday 20:00 -> Wednesday 08:00 (Tuesday a holiday)
                t("2026-01-08T07:00:00Z"),
                t("2026-01-09T07:00:00Z"),
                t("2026-01-12T07:00:00Z"))), // Friday 20:00 -> Monday 08:00
        Arguments.of(
            "weekend skipped (fixed rate, UTC)",
            JobSpec.named("j")
                .handler("h")
                .fixedRate(Duration.ofHours(1))
                .startAt(t("2026-01-09T22:00:00Z")),
            utcWeekdays,
            CalendarPolicy.SKIP,
            t("2026-01-09T21:30:00Z"),
            List.of(
                t("2026-01-09T22:00:00Z"),
                t("2026-01-09T23:00:00Z"),
                t("2026-01-12T00:00:00Z"),
                t("2026-01-12T01:00:00Z"))),
        Arguments.of(
            "weekend skipped by a jump, not a walk (every second)",
            JobSpec.named("j")
                .handler("h")
                .fixedRate(Duration.ofSeconds(1))
                .startAt(t("2026-01-09T23:59:58Z")),
            utcWeekdays,
            CalendarPolicy.SKIP,
            t("2026-01-09T23:00:00Z"),
            List.of(
                t("2026-01-09T23:59:58Z"),
                t("2026-01-09T23:59:59Z"),
                t("2026-01-12T00:00:00Z"),
                t("2026-01-12T00:00:01Z"))),
        Arguments.of(
            "weekend moved to Monday (fixed rate, UTC): one fire stands for the weekend's",
            JobSpec.named("j")
                .handler("h")
                .fixedRate(Duration.ofHours(12))
                .startAt(t("2026-01-09T12:00:00Z")),
            utcWeekdays,
            CalendarPolicy.NEXT_ALLOWED,
            t("2026-01-09T00:00:00Z"),
            List.of(
                t("2026-01-09T12:00:00Z"), t("2026-01-12T00:00:00Z"), t("2026-01-12T12:00:00Z"))),
        Arguments.of(
            "last business day of the month (the 30th a holiday, the 31st a Saturday)",
            JobSpec.named("j").handler("h").cron("0 0 18 * * ?", ZoneOffset.UTC),
            utcWeekdays.excluding(LocalDate.of(2026, 1, 30)).lastBusinessDayOfMonth(),
            CalendarPolicy.SKIP,
            t("2026-01-05T00:00:00Z"),
            List.of(
                t("2026-01-29T18:00:00Z"), t("2026-02-27T18:00:00Z"), t("2026-03-31T18:00:00Z"))),
        Arguments.of(
            "window start in the spring-forward gap is read after the gap",
            JobSpec.named("j").handler("h").cron("0 0 0 * * ?", BERLIN),
            BusinessCalendar.in(BERLIN).between(LocalTime.of(2, 30), LocalTime.of(10, 0)),
            CalendarPolicy.NEXT_ALLOWED,
            t("2026-03-28T12:00:00Z"),
            List.of(
                t("2026-03-29T01:30:00Z"), // 03:30 CEST: 02:30 does not exist that day
                t("2026-03-30T00:30:00Z"))), // 02:30 CEST
        Arguments.of(
            "excluded one-shot under SKIP never fires",
            JobSpec.named("j").handler("h").at(t("2026-01-06T10:00:00Z")),
            desk,
            CalendarPolicy.SKIP,
            t("2026-01-05T00:00:00Z"),
            List.of()),
        Arguments.of(
            "excluded one-shot under NEXT_ALLOWED moves to the next business day",
            JobSpec.named("j").handler("h").at(t("2026-01-06T10:00:00Z")),
            desk,
            CalendarPolicy.NEXT_ALLOWED,
            t("2026-01-05T00:00:00Z"),
            List.of(t("2026-01-06T23:00:00Z")))); // Wednesday 00:00 Berlin
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void fires_followTheCalendar(
      String name,
      JobSpec spec,
      BusinessCalendar calendar,
      CalendarPolicy policy,
      Instant from,
      List<Instant> expected) {
    assertThat(fires(spec, calendar, policy, from, expected.size() + 1))
        .startsWith(expected.toArray(Instant[]::new))
        .hasSizeGreaterThanOrEqualTo(expected.size());
    if (expected.isEmpty()) {
      assertThat(fires(spec, calendar, policy, from, 1)).isEmpty();
    }
  }

  /**
   * The base slots a SKIP calendar dropped in a stretch from one fire: a holiday drops one daily
   * fire, a weekend two; allowed fires in the stretch (run or dropped by a policy) are not counted.
   */
  @Test
  void skipped_countsTheExcludedSlotsOnly() {
    CalendarTimetable tt =
        (CalendarTimetable)
            Timetables.of(
                JobSpec.named("j").handler("h").cron("0 0 9 * * ?", BERLIN).excluding("c"),
                n -> Optional.of(BusinessCalendar.in(BERLIN).weekdays().excluding(EPIPHANY)));

    assertThat(tt.skipped(t("2026-01-05T08:00:00Z"), t("2026-01-07T08:00:00Z")))
        .isEqualTo(
            new CalendarTimetable.Skipped(1, t("2026-01-06T08:00:00Z"), t("2026-01-06T08:00:00Z")));
    assertThat(tt.skipped(t("2026-01-09T08:00:00Z"), t("2026-01-12T08:00:00Z")))
        .isEqualTo(
            new CalendarTimetable.Skipped(2, t("2026-01-10T08:00:00Z"), t("2026-01-11T08:00:00Z")));
    // a week: Tuesday's holiday and the weekend; Wednesday to Friday are fires, not counted
    assertThat(tt.skipped(t("2026-01-05T08:00:00Z"), t("2026-01-12T08:00:00Z")))
        .isEqualTo(
            new CalendarTimetable.Skipped(3, t("2026-01-06T08:00:00Z"), t("2026-01-11T08:00:00Z")));
    assertThat(tt.skipped(t("2026-01-07T08:00:00Z"), t("2026-01-08T08:00:00Z")))
        .isEqualTo(CalendarTimetable.Skipped.NONE);
    assertThat(tt.skipped(t("2026-01-07T08:00:00Z"), t("2026-01-07T08:00:00Z")))
        .isEqualTo(CalendarTimetable.Skipped.NONE);
  }

  /** A calendar's window end is exclusive, its start inclusive. */
  @Test
  void nextAllowed_windowBounds() {
    BusinessCalendar c =
        BusinessCalendar.in(ZoneOffset.UTC).between(LocalTime.of(9, 0), LocalTime.of(17, 0));

    assertThat(c.allows(t("2026-01-05T09:00:00Z"))).isTrue();
    assertThat(c.allows(t("2026-01-05T16:59:59.999999999Z"))).isTrue();
    assertThat(c.allows(t("2026-01-05T17:00:00Z"))).isFalse();
    assertThat(c.nextAllowed(t("2026-01-05T17:00:00Z"))).contains(t("2026-01-06T09:00:00Z"));
    assertThat(c.nextAllowed(t("2026-01-05T08:59:59Z"))).contains(t("2026-01-05T09:00:00Z"));
  }
}
