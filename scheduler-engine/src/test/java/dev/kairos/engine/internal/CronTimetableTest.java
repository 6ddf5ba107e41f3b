package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Cron fire times away from DST: the three syntaxes, special day values, bounds, counting. */
class CronTimetableTest {

  private static CronTimetable utc(String expression, CronSyntax syntax) {
    return CronTimetable.of(
        new Schedule.Cron(expression, ZoneOffset.UTC, syntax, DstPolicy.defaults()), null);
  }

  private static List<LocalDate> nextDates(CronTimetable t, String from, int n) {
    List<LocalDate> dates = new ArrayList<>();
    Optional<Instant> f = t.first(Instant.parse(from));
    while (f.isPresent() && dates.size() < n) {
      dates.add(LocalDate.ofInstant(f.get(), ZoneOffset.UTC));
      f = t.successor(f.get());
    }
    return dates;
  }

  /**
   * Special day values, Quartz semantics. Includes the dates cron-utils 9.2.1 gets wrong: 30W and
   * 31W when that day is a Sunday (it fires on the Sunday) or missing (it throws).
   */
  @ParameterizedTest(name = "{0} from {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
"""
QUARTZ | 0 0 0 30W * ?         | 2024-01-31T00:00:00Z | 2024-03-29 2024-04-30 2024-05-30 2024-06-28 2024-07-30
QUARTZ | 0 0 0 31W * ?         | 2023-12-01T00:00:00Z | 2023-12-29 2024-01-31 2024-03-29 2024-05-31 2024-07-31
QUARTZ | 0 0 0 1W * ?          | 2024-05-15T00:00:00Z | 2024-06-03 2024-07-01 2024-08-01 2024-09-02
QUARTZ | 0 0 0 15W * ?         | 2024-06-01T00:00:00Z | 2024-06-14 2024-07-15 2024-08-15 2024-09-16
QUARTZ | 0 0 0 LW * ?          | 2024-01-01T00:00:00Z | 2024-01-31 2024-02-29 2024-03-29 2024-04-30
QUARTZ | 0 0 0 L * ?           | 2024-01-01T00:00:00Z | 2024-01-31 2024-02-29 2024-03-31 2024-04-30
QUARTZ | 0 0 0 L-3 * ?         | 2024-01-01T00:00:00Z | 2024-01-28 2024-02-26 2024-03-28 2024-04-27
QUARTZ | 0 0 0 1,15,L * ?      | 2024-02-10T00:00:00Z | 2024-02-15 2024-02-29 2024-03-01 2024-03-15
QUARTZ | 0 0 0 ? * 6L          | 2024-01-01T00:00:00Z | 2024-01-26 2024-02-23 2024-03-29 2024-04-26
QUARTZ | 0 0 0 ? * MON#5       | 2024-01-01T00:00:00Z | 2024-01-29 2024-04-29 2024-07-29 2024-09-30
QUARTZ | 0 0 0 ? * FRI-MON     | 2024-01-03T00:00:00Z | 2024-01-05 2024-01-06 2024-01-07 2024-01-08 2024-01-12
QUARTZ | 0 0 0 ? * L           | 2024-01-01T00:00:00Z | 2024-01-06 2024-01-13 2024-01-20
QUARTZ | 0 0 0 29 2 ?          | 2024-03-01T00:00:00Z | 2028-02-29 2032-02-29
QUARTZ | 0 0 0 1 1 ? 2030/5    | 2024-03-01T00:00:00Z | 2030-01-01 2035-01-01 2040-01-01
UNIX   | 0 0 1 * MON           | 2024-01-01T00:00:00Z | 2024-01-08 2024-01-15 2024-01-22 2024-01-29 2024-02-01 2024-02-05
UNIX   | 0 0 * * 0             | 2024-01-01T00:00:00Z | 2024-01-07 2024-01-14
UNIX   | 0 0 * * 7             | 2024-01-01T00:00:00Z | 2024-01-07 2024-01-14
UNIX   | 0 0 */10 * MON        | 2023-12-31T00:00:00Z | 2024-01-01 2024-03-11 2024-04-01
SPRING | 0 0 12 * * SUN-TUE    | 2024-01-03T00:00:00Z | 2024-01-07 2024-01-08 2024-01-09 2024-01-14
SPRING | 0 0 12 1 * MON        | 2024-01-02T00:00:00Z | 2024-04-01 2024-07-01 2025-09-01
SPRING | 0 0 12 L-2 * *        | 2024-01-01T00:00:00Z | 2024-01-29 2024-02-27
SPRING | @monthly              | 2024-01-15T00:00:00Z | 2024-02-01 2024-03-01
""")
  void successor_specialDayValues_followSyntax(
      CronSyntax syntax, String expression, String from, String expected) {
    List<LocalDate> want = Arrays.stream(expected.split(" ")).map(LocalDate::parse).toList();

    assertThat(nextDates(utc(expression, syntax), from, want.size()))
        .containsExactlyElementsOf(want);
  }

  @Test
  void successor_perSecondAndUnixMinutes_areWholeSeconds() {
    CronTimetable perSecond = utc("* * * * * ?", CronSyntax.QUARTZ);
    CronTimetable unix = utc("* * * * *", CronSyntax.UNIX);
    Instant t = Instant.parse("2024-01-01T10:00:00.250Z");

    assertThat(perSecond.successor(t)).contains(Instant.parse("2024-01-01T10:00:01Z"));
    assertThat(perSecond.successor(Instant.parse("2024-01-01T10:00:00Z")))
        .contains(Instant.parse("2024-01-01T10:00:01Z"));
    assertThat(unix.successor(t)).contains(Instant.parse("2024-01-01T10:01:00Z"));
  }

  @Test
  void first_withStartAt_firesAtOrAfterStartAt() {
    Schedule.Cron daily =
        new Schedule.Cron("0 0 2 * * ?", ZoneOffset.UTC, CronSyntax.QUARTZ, DstPolicy.defaults());
    Instant now = Instant.parse("2024-01-01T00:00:00Z");

    assertThat(CronTimetable.of(daily, Instant.parse("2024-01-05T02:00:00Z")).first(now))
        .contains(Instant.parse("2024-01-05T02:00:00Z"));
    assertThat(CronTimetable.of(daily, Instant.parse("2024-01-05T02:00:01Z")).first(now))
        .contains(Instant.parse("2024-01-06T02:00:00Z"));
    assertThat(CronTimetable.of(daily, Instant.parse("2023-01-01T00:00:00Z")).first(now))
        .contains(Instant.parse("2024-01-01T02:00:00Z"));
    // Scheduled exactly at a fire time: the first fire is the next one.
    assertThat(CronTimetable.of(daily, null).first(Instant.parse("2024-01-01T02:00:00Z")))
        .contains(Instant.parse("2024-01-02T02:00:00Z"));
  }

  @Test
  void successor_pastLastYearOrFarFuture_isEmpty() {
    assertThat(
            utc("0 0 0 1 1 ? 2030", CronSyntax.QUARTZ)
                .successor(Instant.parse("2030-01-01T00:00:00Z")))
        .isEmpty();
    CronTimetable daily =
        CronTimetable.of(
            new Schedule.Cron(
                "0 0 2 * * ?", ZoneId.of("Europe/Berlin"), CronSyntax.QUARTZ, DstPolicy.defaults()),
            null);
    assertThat(daily.successor(Instant.parse("+100000-06-01T00:00:00Z")))
        .contains(Instant.parse("+100000-06-02T00:00:00Z"));
    assertThat(daily.successor(Instant.MAX)).isEmpty();
    assertThat(daily.countDue(Instant.MAX.minusSeconds(10), Instant.MAX, 10)).isZero();
    assertThat(daily.nth(Instant.parse("+100000-06-02T00:00:00Z"), 3))
        .contains(Instant.parse("+100000-06-05T00:00:00Z"));
  }

  /**
   * A per-second schedule behind by three days counts and indexes its 259,201 fires without walking
   * them: well under a second.
   */
  @Test
  void countDueAndNth_perSecondBehindThreeDays_areFastAndExact() {
    CronTimetable perSecond =
        CronTimetable.of(
            new Schedule.Cron(
                "* * * * * ?", ZoneId.of("Europe/Berlin"), CronSyntax.QUARTZ, DstPolicy.defaults()),
            null);
    // Across the autumn overlap: 3 days plus the repeated hour.
    Instant from = Instant.parse("2024-10-25T00:00:00Z");
    Instant now = from.plus(Duration.ofDays(3));

    assertTimeoutPreemptively(
        Duration.ofSeconds(5),
        () -> {
          assertThat(perSecond.countDue(from, now, Timetable.WALK_CAP))
              .isEqualTo(Timetable.WALK_CAP);
          assertThat(perSecond.countDue(from, now, Long.MAX_VALUE)).isEqualTo(3 * 86_400 + 1);
          assertThat(perSecond.nth(from, 3 * 86_400)).contains(now);
          assertThat(perSecond.nth(from, 99_999)).contains(from.plusSeconds(99_999));
        });
  }

  /** Under FIRST, a daily 02:30 behind across the fall-back day counts the repeated time once. */
  @Test
  void countDue_dailyAcrossOverlap_countsPolicyFires() {
    Schedule.Cron cron =
        new Schedule.Cron(
            "0 30 2 * * ?", ZoneId.of("Europe/Berlin"), CronSyntax.QUARTZ, DstPolicy.defaults());
    Instant from = Instant.parse("2024-10-20T00:30:00Z"); // 02:30 CEST
    Instant now = Instant.parse("2024-11-03T12:00:00Z");

    assertThat(CronTimetable.of(cron, null).countDue(from, now, 1000)).isEqualTo(15);
    assertThat(
            CronTimetable.of(
                    new Schedule.Cron(
                        cron.expression(),
                        cron.zone(),
                        cron.syntax(),
                        new DstPolicy(DstPolicy.Gap.SHIFT, DstPolicy.Overlap.BOTH)),
                    null)
                .countDue(from, now, 1000))
        .isEqualTo(16);
  }
}
