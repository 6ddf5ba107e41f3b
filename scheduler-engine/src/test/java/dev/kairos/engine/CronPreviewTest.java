package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.JobSpec;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class CronPreviewTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static Instant at(String offsetDateTime) {
    return OffsetDateTime.parse(offsetDateTime).toInstant();
  }

  @Test
  void nextFireTimes_cronAcrossSpringForward_showsShiftedFire() {
    JobSpec spec = JobSpec.named("report").cron("0 30 2 * * ?", BERLIN);

    assertThat(CronPreview.nextFireTimes(spec, at("2024-03-29T12:00+01:00"), 3))
        .containsExactly(
            at("2024-03-30T02:30+01:00"),
            at("2024-03-31T03:00+02:00"),
            at("2024-04-01T02:30+02:00"));
    assertThat(
            CronPreview.nextFireTimes(
                spec.dst(DstPolicy.defaults().gap(DstPolicy.Gap.SKIP)),
                at("2024-03-29T12:00+01:00"),
                2))
        .containsExactly(at("2024-03-30T02:30+01:00"), at("2024-04-01T02:30+02:00"));
  }

  /** Due times are the fire times plus each fire's jitter offset, as the scheduler runs them. */
  @Test
  void nextDueTimes_jitteredCron_showsEachFirePlusItsOffset() {
    Duration jitter = Duration.ofMinutes(10);
    JobSpec spec = JobSpec.named("poll").cron("0 0 * * * ?", BERLIN).jitter(jitter);
    Instant from = at("2024-03-29T12:00+01:00");

    var fires = CronPreview.nextFireTimes(spec, from, 5);
    var due = CronPreview.nextDueTimes(spec, from, 5);

    assertThat(fires).hasSize(5);
    assertThat(due)
        .containsExactlyElementsOf(
            fires.stream()
                .map(f -> f.plus(dev.kairos.engine.internal.Jitter.offset("poll", f, jitter)))
                .toList());
    for (int i = 0; i < 5; i++) {
      assertThat(due.get(i)).isBetween(fires.get(i), fires.get(i).plus(jitter).minusNanos(1));
    }
    assertThat(CronPreview.nextDueTimes(spec.jitter(Duration.ZERO), from, 5)).isEqualTo(fires);
  }

  @Test
  void nextDueTimes_badJitter_isRefusedNamingKeyAndValue() {
    JobSpec spec =
        JobSpec.named("tick").fixedRate(Duration.ofMinutes(5)).jitter(Duration.ofMinutes(5));

    assertThatThrownBy(() -> CronPreview.nextDueTimes(spec, Instant.EPOCH, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll("'tick'", "jitter", "PT5M");
  }

  @Test
  void nextFireTimes_cronWithoutZone_usesDefaultZone() {
    JobSpec spec = JobSpec.named("report").handler("h").cron("0 0 9 * * ?");

    assertThat(
            CronPreview.nextFireTimes(
                spec, Instant.parse("2024-07-01T00:00:00Z"), 1, ZoneId.of("America/New_York")))
        .containsExactly(Instant.parse("2024-07-01T13:00:00Z"));
  }

  @Test
  void nextFireTimes_otherScheduleKinds_workToo() {
    Instant from = Instant.parse("2024-01-01T00:00:00Z");

    assertThat(
            CronPreview.nextFireTimes(
                JobSpec.named("tick").fixedRate(Duration.ofMinutes(5)), from, 3))
        .containsExactly(from, from.plusSeconds(300), from.plusSeconds(600));
    assertThat(CronPreview.nextFireTimes(JobSpec.named("once").after(Duration.ofHours(1)), from, 5))
        .containsExactly(from.plusSeconds(3600));
    assertThat(
            CronPreview.nextFireTimes(JobSpec.named("none").cron("0 0 2 * * ?", BERLIN), from, 0))
        .isEmpty();
  }

  @Test
  void nextFireTimes_invalidSpec_failsNamingKey() {
    assertThatThrownBy(
            () ->
                CronPreview.nextFireTimes(
                    JobSpec.named("report").cron("0 0 0 31 4 ?", BERLIN), Instant.EPOCH, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("job 'report': cron expression '0 0 0 31 4 ?' never fires");
    assertThatThrownBy(
            () ->
                CronPreview.nextFireTimes(
                    JobSpec.named("report").cron("0 0 2 * * ?", BERLIN), Instant.EPOCH, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void describe_validExpression_isWords() {
    assertThat(CronPreview.describe("0 0/5 * * * ?", CronSyntax.QUARTZ, Locale.ENGLISH))
        .isEqualTo("every 5 minutes");
    assertThat(CronPreview.describe("30 2 * * *", CronSyntax.UNIX, Locale.ENGLISH))
        .isEqualTo("at 02:30");
    assertThat(CronPreview.describe("0 30 2 * * ?", CronSyntax.QUARTZ, Locale.GERMAN))
        .isEqualTo("um 02:30");
  }

  @Test
  void describe_invalidExpression_namesField() {
    assertThatThrownBy(
            () -> CronPreview.describe("0 0 25 * * ?", CronSyntax.QUARTZ, Locale.ENGLISH))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "invalid cron expression '0 0 25 * * ?' (QUARTZ syntax): hour field '25': Value 25 not"
                + " in range [0, 23]");
  }

  /** The README's calendar example: a holiday and the weekend skipped, or moved. */
  @Test
  void nextFireTimes_withCalendar_showsTheCalendarApplied() {
    BusinessCalendar desk =
        BusinessCalendar.in(BERLIN)
            .weekdays()
            .excluding(LocalDate.of(2026, 1, 6))
            .between(LocalTime.of(8, 0), LocalTime.of(18, 0));
    Instant from = at("2026-01-05T00:00+01:00");

    assertThat(
            CronPreview.nextFireTimes(
                JobSpec.named("settle").cron("0 0 9 * * ?", BERLIN).excluding("berlin-desk"),
                desk,
                from,
                4,
                BERLIN))
        .containsExactly(
            at("2026-01-05T09:00+01:00"),
            at("2026-01-07T09:00+01:00"),
            at("2026-01-08T09:00+01:00"),
            at("2026-01-09T09:00+01:00"));
    assertThat(
            CronPreview.nextFireTimes(
                JobSpec.named("export")
                    .cron("0 0 20 * * ?", BERLIN)
                    .excluding("berlin-desk", CalendarPolicy.NEXT_ALLOWED),
                desk,
                from,
                4,
                BERLIN))
        .containsExactly(
            at("2026-01-07T08:00+01:00"),
            at("2026-01-08T08:00+01:00"),
            at("2026-01-09T08:00+01:00"),
            at("2026-01-12T08:00+01:00"));
  }

  /** Each fire names the slots the calendar excluded before it: dropped, or moved to it. */
  @Test
  void nextFires_withCalendar_listsExcludedSlotsBeforeEachFire() {
    BusinessCalendar desk =
        BusinessCalendar.in(BERLIN)
            .weekdays()
            .excluding(LocalDate.of(2026, 1, 6))
            .between(LocalTime.of(8, 0), LocalTime.of(18, 0));
    Instant from = at("2026-01-05T00:00+01:00");

    var skip =
        CronPreview.nextFires(
            JobSpec.named("settle").cron("0 0 9 * * ?", BERLIN).excluding("desk"),
            desk,
            from,
            2,
            BERLIN);
    assertThat(skip)
        .containsExactly(
            new CronPreview.Fire(
                at("2026-01-05T09:00+01:00"), at("2026-01-05T09:00+01:00"), List.of(), 0),
            new CronPreview.Fire(
                at("2026-01-07T09:00+01:00"),
                at("2026-01-07T09:00+01:00"),
                List.of(at("2026-01-06T09:00+01:00")),
                1));

    var moved =
        CronPreview.nextFires(
            JobSpec.named("export")
                .cron("0 0 20 * * ?", BERLIN)
                .excluding("desk", CalendarPolicy.NEXT_ALLOWED),
            desk,
            from,
            2,
            BERLIN);
    assertThat(moved.get(0).fire()).isEqualTo(at("2026-01-07T08:00+01:00"));
    assertThat(moved.get(0).excluded())
        .containsExactly(at("2026-01-05T20:00+01:00"), at("2026-01-06T20:00+01:00"));
    assertThat(moved.get(1).fire()).isEqualTo(at("2026-01-08T08:00+01:00"));
    assertThat(moved.get(1).excluded()).containsExactly(at("2026-01-07T20:00+01:00"));
  }

  /** A long excluded stretch is counted in full but listed only up to n; due times are jittered. */
  @Test
  void nextFires_longExclusion_isCountedAndCut_andDueTimesAreJittered() {
    BusinessCalendar weekdays = BusinessCalendar.in(BERLIN).weekdays();
    JobSpec spec =
        JobSpec.named("poll")
            .fixedRate(Duration.ofMinutes(1))
            .startAt(at("2026-01-09T23:58+01:00"))
            .jitter(Duration.ofSeconds(30))
            .excluding("weekdays");

    var fires = CronPreview.nextFires(spec, weekdays, at("2026-01-09T12:00+01:00"), 3, BERLIN);

    assertThat(fires)
        .extracting(CronPreview.Fire::fire)
        .containsExactly(
            at("2026-01-09T23:58+01:00"),
            at("2026-01-09T23:59+01:00"),
            at("2026-01-12T00:00+01:00"));
    assertThat(fires.get(2).excludedCount()).isEqualTo(2 * 24 * 60);
    assertThat(fires.get(2).excluded())
        .containsExactly(
            at("2026-01-10T00:00+01:00"),
            at("2026-01-10T00:01+01:00"),
            at("2026-01-10T00:02+01:00"));
    assertThat(fires.subList(0, 2))
        .extracting(CronPreview.Fire::due)
        .containsExactlyElementsOf(
            CronPreview.nextDueTimes(spec.excluding(null), at("2026-01-09T12:00+01:00"), 2));
    assertThat(fires.get(2).due())
        .isEqualTo(CronPreview.dueTime(spec, at("2026-01-12T00:00+01:00")))
        .isNotEqualTo(at("2026-01-12T00:00+01:00"));
    assertThat(fires)
        .allSatisfy(
            f ->
                assertThat(Duration.between(f.fire(), f.due()))
                    .isGreaterThanOrEqualTo(Duration.ZERO)
                    .isLessThan(Duration.ofSeconds(30)));
  }

  /** Without a calendar every fire stands, and the spec's calendar name is ignored. */
  @Test
  void nextFires_withoutCalendar_excludesNothing() {
    var fires =
        CronPreview.nextFires(
            JobSpec.named("r").cron("0 0 9 * * ?", BERLIN).excluding("gone"),
            null,
            at("2026-01-09T00:00+01:00"),
            3,
            BERLIN);
    assertThat(fires).hasSize(3).allSatisfy(f -> assertThat(f.excluded()).isEmpty());
    assertThat(fires.get(1).fire()).isEqualTo(at("2026-01-10T09:00+01:00"));
  }

  /** An invalid calendar is refused, naming it. */
  @Test
  void nextFireTimes_invalidCalendar_refusedNamingIt() {
    assertThatThrownBy(
            () ->
                CronPreview.nextFireTimes(
                    JobSpec.named("j").cron("0 0 9 * * ?", BERLIN).excluding("never"),
                    BusinessCalendar.in(BERLIN).days(java.util.List.of()),
                    Instant.EPOCH,
                    1,
                    BERLIN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("calendar 'never'");
  }

  /** No cron-utils type leaks into the public surface. */
  @Test
  void publicSignatures_mentionNoCronUtilsType() {
    for (Class<?> c :
        new Class<?>[] {CronPreview.class, dev.kairos.engine.internal.CronCompiler.class}) {
      for (Method m : c.getDeclaredMethods()) {
        if (!Modifier.isPublic(m.getModifiers())) {
          continue;
        }
        assertThat(m.getGenericReturnType().getTypeName()).doesNotContain("cronutils");
        assertThat(Arrays.stream(m.getGenericParameterTypes()).map(Type::getTypeName))
            .noneMatch(n -> n.contains("cronutils"));
      }
    }
  }
}
