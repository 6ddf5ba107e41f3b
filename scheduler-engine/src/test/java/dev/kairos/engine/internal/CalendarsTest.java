package dev.kairos.engine.internal;

import static java.time.Duration.ofDays;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.JobRecord;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Calendars end to end over the step API and a {@code ManualClock} (T0 is Monday 2026-01-05). */
class CalendarsTest {
  private static final LocalDate TUESDAY = LocalDate.of(2026, 1, 6);
  private static final BusinessCalendar DESK =
      BusinessCalendar.in(ZoneOffset.UTC).weekdays().excluding(TUESDAY);
  private static final JobSpec DAILY =
      JobSpec.named("daily").handler("h").cron("0 0 9 * * ?", ZoneOffset.UTC);

  private static Instant t(String s) {
    return Instant.parse(s);
  }

  @Test
  void schedule_unknownCalendar_refusedNamingKeyAndCalendar() {
    Harness h = new Harness(ctx -> {});

    assertThatThrownBy(() -> h.scheduler.schedule(DAILY.excluding("nowhere")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("job 'daily'")
        .hasMessageContaining("calendar 'nowhere' does not exist");
    assertThat(h.scheduler.job("daily")).isEmpty();
  }

  @Test
  void scheduleAll_unknownCalendar_refusedNamingKeyAndCalendar() {
    Harness h = new Harness(ctx -> {});

    assertThatThrownBy(() -> h.scheduler.scheduleAll(List.of(DAILY.excluding("nowhere"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("job 'daily'")
        .hasMessageContaining("calendar 'nowhere'");
  }

  @Test
  void schedule_onACalendarAnotherInstanceRemoved_refusedByTheStore_thenHereLikeAnyUnknownOne() {
    InMemoryStore shared = InMemoryStore.shared(TimeSource.system());
    Harness h = new Harness(shared, ctx -> {});
    h.scheduler.putCalendar("desk", DESK);
    assertThat(shared.deleteCalendar("desk")).isTrue(); // another instance; this one still has it

    assertThatThrownBy(() -> h.scheduler.schedule(DAILY.excluding("desk")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("job 'daily'")
        .hasMessageContaining("calendar 'desk'");
    assertThatThrownBy(() -> h.scheduler.schedule(DAILY.excluding("desk")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("calendar 'desk' does not exist");
    assertThat(h.scheduler.job("daily")).isEmpty();
  }

  @Test
  void scheduleAll_onACalendarAnotherInstanceRemoved_refusedByTheStore_thenHereLikeAnyUnknownOne() {
    InMemoryStore shared = InMemoryStore.shared(TimeSource.system());
    Harness h = new Harness(shared, ctx -> {});
    h.scheduler.putCalendar("desk", DESK);
    assertThat(shared.deleteCalendar("desk")).isTrue();
    List<JobSpec> both =
        List.of(DAILY.excluding("desk"), JobSpec.named("plain").handler("h").at(Harness.T0));

    assertThatThrownBy(() -> h.scheduler.scheduleAll(both))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("job 'daily'")
        .hasMessageContaining("calendar 'desk'");
    assertThatThrownBy(() -> h.scheduler.scheduleAll(both))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("calendar 'desk' does not exist");
    assertThat(h.scheduler.jobs()).isEmpty();
  }

  @Test
  void skip_holidayFireDropped_andCountedAsDropped() {
    List<String> dropped = new CopyOnWriteArrayList<>();
    SchedulerListener l =
        new SchedulerListener() {
          @Override
          public void firesDropped(String key, Instant oldest, long n, Misfire policy) {
            dropped.add(key + " " + oldest + " " + n);
          }
        };
    Harness h = new Harness(new InMemoryStore(), Kairos.builder().listener(l), ctx -> {});
    h.scheduler.putCalendar("desk", DESK);
    h.scheduler.schedule(DAILY.excluding("desk"));

    h.runUntil(Harness.T0.plus(ofDays(3)));

    assertThat(h.runs.stream().map(r -> r.scheduledFireTime()))
        .containsExactly(t("2026-01-05T09:00:00Z"), t("2026-01-07T09:00:00Z"));
    assertThat(dropped).containsExactly("daily 2026-01-06T09:00:00Z 1");
  }

  @Test
  void nextAllowed_movesToNextBusinessDayWindowStart() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.putCalendar("hours", DESK.between(LocalTime.of(10, 0), LocalTime.of(16, 0)));
    h.scheduler.schedule(DAILY.excluding("hours", CalendarPolicy.NEXT_ALLOWED));

    h.runUntil(Harness.T0.plus(ofDays(3)));

    assertThat(h.runs.stream().map(r -> r.scheduledFireTime()))
        .containsExactly(t("2026-01-05T10:00:00Z"), t("2026-01-07T10:00:00Z"));
  }

  @Test
  void putCalendar_newDefinition_recomputesTheNextFireOfItsJobs() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.putCalendar("desk", BusinessCalendar.in(ZoneOffset.UTC));
    h.scheduler.schedule(DAILY.excluding("desk"));
    assertThat(h.scheduler.job("daily").orElseThrow().nextFireTime())
        .isEqualTo(t("2026-01-05T09:00:00Z"));

    h.scheduler.putCalendar(
        "desk", BusinessCalendar.in(ZoneOffset.UTC).excluding(LocalDate.of(2026, 1, 5)));

    assertThat(h.scheduler.job("daily").orElseThrow().nextFireTime())
        .isEqualTo(t("2026-01-06T09:00:00Z"));
    h.runUntil(Harness.T0.plus(ofDays(1)));
    assertThat(h.runs).isEmpty();
    assertThat(h.scheduler.calendar("desk").orElseThrow().excludedDates())
        .containsExactly(LocalDate.of(2026, 1, 5));
  }

  @Test
  void removeCalendar_usedByAJob_refusedNamingIt_thenRemovedOnceUnused() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.putCalendar("desk", DESK);
    h.scheduler.schedule(DAILY.excluding("desk"));

    assertThatThrownBy(() -> h.scheduler.removeCalendar("desk"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("calendar 'desk'")
        .hasMessageContaining("'daily'");
    assertThat(h.scheduler.calendars()).containsOnlyKeys("desk");

    h.scheduler.unschedule("daily");
    assertThat(h.scheduler.removeCalendar("desk")).isTrue();
    assertThat(h.scheduler.removeCalendar("desk")).isFalse();
    assertThat(h.scheduler.calendars()).isEmpty();
  }

  @Test
  void putCalendar_invalid_refusedNamingTheCalendar() {
    Harness h = new Harness(ctx -> {});

    assertThatThrownBy(
            () ->
                h.scheduler.putCalendar(
                    "never", BusinessCalendar.in(ZoneOffset.UTC).days(List.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("calendar 'never'")
        .hasMessageContaining("no business day");
    assertThatThrownBy(
            () ->
                h.scheduler.putCalendar(
                    "backwards",
                    BusinessCalendar.in(ZoneOffset.UTC)
                        .between(LocalTime.of(17, 0), LocalTime.of(9, 0))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("calendar 'backwards'");
  }

  /** A stored job whose calendar is missing is listed as unreadable and never fired. */
  @Test
  void storedJob_missingCalendar_refusedAsUnreadable_neverFired() {
    InMemoryStore store = new InMemoryStore();
    store.upsert(JobRecord.fresh(DAILY.excluding("gone"), t("2026-01-05T09:00:00Z")));
    Harness h = new Harness(store, ctx -> {});

    h.runUntil(Harness.T0.plus(ofDays(2)));

    assertThat(h.runs).isEmpty();
    assertThat(h.scheduler.unreadable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.key()).isEqualTo("daily");
              assertThat(u.reason()).contains("calendar 'gone' does not exist");
            });
  }
}
