package dev.kairos.dashboard;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A scheduler that is never started, on an in-memory store at a fixed instant (Friday 2 January
 * 2026, 01:00 in Berlin), with calendars and jobs attached to them. {@link #scheduler} hides the
 * calendar {@value #GONE}, as a store from which it was deleted behind the scheduler's back would.
 */
final class CalendarFixture implements AutoCloseable {
  static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  static final Instant NOW = Instant.parse("2026-01-02T00:00:00Z");
  static final String GONE = "gone";
  static final String XSS_CALENDAR = "<b>bold</b>";

  private final Scheduler real;

  /** The scheduler the dashboard is given: the real one, without calendar {@value #GONE}. */
  final Scheduler scheduler;

  CalendarFixture() {
    real =
        Kairos.builder()
            .store(new InMemoryStore())
            .clock(new ManualClock(NOW))
            .defaultZone(BERLIN)
            .handler("ok", ctx -> {})
            .build();
    real.putCalendar(
        "berlin-desk", BusinessCalendar.in(BERLIN).weekdays().excluding(LocalDate.of(2026, 1, 6)));
    real.putCalendar(
        "desk-hours",
        BusinessCalendar.in(BERLIN).weekdays().between(LocalTime.of(8, 0), LocalTime.of(18, 0)));
    real.putCalendar(GONE, BusinessCalendar.in(BERLIN));
    real.putCalendar(XSS_CALENDAR, BusinessCalendar.in(ZoneId.of("UTC")).lastBusinessDayOfMonth());
    real.schedule(
        JobSpec.named("settle").handler("ok").cron("0 0 9 * * ?", BERLIN).excluding("berlin-desk"));
    real.schedule(
        JobSpec.named("export")
            .handler("ok")
            .cron("0 0 20 * * ?", BERLIN)
            .excluding("desk-hours", CalendarPolicy.NEXT_ALLOWED));
    real.schedule(
        JobSpec.named("poll")
            .handler("ok")
            .fixedRate(Duration.ofHours(1))
            .jitter(Duration.ofMinutes(10)));
    real.schedule(
        JobSpec.named("tick")
            .handler("ok")
            .fixedRate(Duration.ofMinutes(1))
            .startAt(Instant.parse("2026-01-02T22:58:00Z"))
            .excluding("berlin-desk"));
    real.schedule(
        JobSpec.named("orphan").handler("ok").cron("0 0 9 * * ?", BERLIN).excluding(GONE));
    scheduler = withoutCalendar(real, GONE);
  }

  /** A view of {@code s} in which the calendar {@code hidden} does not exist. */
  private static Scheduler withoutCalendar(Scheduler s, String hidden) {
    return (Scheduler)
        Proxy.newProxyInstance(
            Scheduler.class.getClassLoader(),
            new Class<?>[] {Scheduler.class},
            (proxy, method, args) -> {
              if (method.getName().equals("calendar") && hidden.equals(args[0])) {
                return Optional.empty();
              }
              if (method.getName().equals("calendars")) {
                TreeMap<String, BusinessCalendar> all = new TreeMap<>(s.calendars());
                all.remove(hidden);
                return all;
              }
              try {
                return method.invoke(s, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Override
  public void close() {
    real.close();
  }
}
