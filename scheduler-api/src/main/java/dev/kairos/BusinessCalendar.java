package dev.kairos;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * When the jobs attached to it may fire: business days (allowed days of the week), excluded dates
 * (holidays), an optional time-of-day window, all read in one zone; optionally only the last
 * business day of each month. Stored by name ({@link Scheduler#putCalendar}) and attached to jobs
 * with {@link JobSpec#excluding(String)}. Immutable; each method returns a changed copy.
 *
 * <p>Named {@code BusinessCalendar}, not {@code Calendar}: it describes business days and hours,
 * and it does not clash with {@link java.util.Calendar} in code that imports both.
 *
 * <pre>{@code
 * BusinessCalendar desk = BusinessCalendar.in(ZoneId.of("Europe/Berlin"))
 *     .weekdays()                                   // Monday to Friday
 *     .excluding(LocalDate.of(2026, 12, 25), LocalDate.of(2026, 12, 26))
 *     .between(LocalTime.of(8, 0), LocalTime.of(18, 0));
 * scheduler.putCalendar("berlin-desk", desk);
 * }</pre>
 *
 * <p>An instant is <em>allowed</em> when, in the calendar's zone, its date is a business day (an
 * allowed day of the week, not excluded, and with {@link #lastBusinessDayOfMonth()} the last such
 * day of its month) and its local time is in the window {@code [from, until)}. A window bound in a
 * daylight-saving gap is read as the first instant after the gap.
 */
public final class BusinessCalendar {
  /** How many days {@link #nextAllowed} looks ahead before it gives up: ten years. */
  public static final int MAX_LOOK_AHEAD_DAYS = 3653;

  private final ZoneId zone;
  private final Set<DayOfWeek> days;
  private final SortedSet<LocalDate> excluded;
  private final LocalTime from;
  private final LocalTime until;
  private final boolean lastBusinessDay;

  private BusinessCalendar(
      ZoneId zone,
      Set<DayOfWeek> days,
      SortedSet<LocalDate> excluded,
      LocalTime from,
      LocalTime until,
      boolean lastBusinessDay) {
    this.zone = zone;
    this.days = days;
    this.excluded = excluded;
    this.from = from;
    this.until = until;
    this.lastBusinessDay = lastBusinessDay;
  }

  /**
   * A calendar in {@code zone} that allows every instant: every day of the week, no excluded date,
   * the whole day.
   *
   * @param zone the zone dates and times are read in
   * @return the calendar
   */
  public static BusinessCalendar in(ZoneId zone) {
    Objects.requireNonNull(zone, "zone must not be null");
    return new BusinessCalendar(
        zone,
        Collections.unmodifiableSet(EnumSet.allOf(DayOfWeek.class)),
        Collections.unmodifiableSortedSet(new TreeSet<>()),
        null,
        null,
        false);
  }

  /**
   * Allows only these days of the week (the business days), replacing those set before.
   *
   * @param businessDays the allowed days, at least one
   * @return the changed copy
   */
  public BusinessCalendar days(DayOfWeek... businessDays) {
    return days(List.of(businessDays));
  }

  /**
   * Allows only these days of the week (the business days), replacing those set before.
   *
   * @param businessDays the allowed days, at least one ({@code schedule}-time checks refuse none)
   * @return the changed copy
   */
  public BusinessCalendar days(Collection<DayOfWeek> businessDays) {
    Set<DayOfWeek> d = EnumSet.noneOf(DayOfWeek.class);
    d.addAll(businessDays);
    return new BusinessCalendar(
        zone, Collections.unmodifiableSet(d), excluded, from, until, lastBusinessDay);
  }

  /**
   * Allows Monday to Friday only.
   *
   * @return the changed copy
   */
  public BusinessCalendar weekdays() {
    return days(EnumSet.range(DayOfWeek.MONDAY, DayOfWeek.FRIDAY));
  }

  /**
   * Excludes these dates (holidays), added to those excluded before.
   *
   * @param dates the excluded dates, in the calendar's zone
   * @return the changed copy
   */
  public BusinessCalendar excluding(LocalDate... dates) {
    return excluding(List.of(dates));
  }

  /**
   * Excludes these dates (holidays), added to those excluded before.
   *
   * @param dates the excluded dates, in the calendar's zone
   * @return the changed copy
   */
  public BusinessCalendar excluding(Collection<LocalDate> dates) {
    TreeSet<LocalDate> e = new TreeSet<>(excluded);
    for (LocalDate d : dates) {
      e.add(Objects.requireNonNull(d, "excluded date must not be null"));
    }
    return new BusinessCalendar(
        zone, days, Collections.unmodifiableSortedSet(e), from, until, lastBusinessDay);
  }

  /**
   * Allows only the local times in {@code [from, until)} of each business day ({@code from} before
   * {@code until}; a window across midnight is two calendars' work and is refused).
   *
   * @param from the first allowed local time
   * @param until the first local time no longer allowed
   * @return the changed copy
   */
  public BusinessCalendar between(LocalTime from, LocalTime until) {
    return new BusinessCalendar(zone, days, excluded, from, until, lastBusinessDay);
  }

  /**
   * Allows only the last business day of each month (for example month-end reports): the last day
   * of the month that is an allowed day of the week and not excluded.
   *
   * @return the changed copy
   */
  public BusinessCalendar lastBusinessDayOfMonth() {
    return new BusinessCalendar(zone, days, excluded, from, until, true);
  }

  /**
   * The zone dates and times are read in.
   *
   * @return the zone
   */
  public ZoneId zone() {
    return zone;
  }

  /**
   * The allowed days of the week.
   *
   * @return the business days, unmodifiable
   */
  public Set<DayOfWeek> days() {
    return days;
  }

  /**
   * The excluded dates, in order.
   *
   * @return the excluded dates, unmodifiable
   */
  public SortedSet<LocalDate> excludedDates() {
    return excluded;
  }

  /**
   * The first allowed local time of a day, if the calendar has a window.
   *
   * @return the window's start, or empty for the whole day
   */
  public Optional<LocalTime> from() {
    return Optional.ofNullable(from);
  }

  /**
   * The first local time no longer allowed, if the calendar has a window.
   *
   * @return the window's end (exclusive), or empty for the whole day
   */
  public Optional<LocalTime> until() {
    return Optional.ofNullable(until);
  }

  /**
   * True if only the last business day of each month is allowed.
   *
   * @return whether the last-business-day rule applies
   */
  public boolean lastBusinessDayOnly() {
    return lastBusinessDay;
  }

  /**
   * True if {@code date} is a business day: an allowed day of the week, not excluded (the
   * last-business-day rule aside).
   *
   * @param date a date in the calendar's zone
   * @return whether it is a business day
   */
  public boolean isBusinessDay(LocalDate date) {
    return days.contains(date.getDayOfWeek()) && !excluded.contains(date);
  }

  /**
   * True if fires may happen on {@code date}: a business day and, under the last-business-day rule,
   * the last of its month.
   *
   * @param date a date in the calendar's zone
   * @return whether the date is allowed
   */
  public boolean allowsDate(LocalDate date) {
    if (!isBusinessDay(date)) {
      return false;
    }
    if (!lastBusinessDay) {
      return true;
    }
    for (LocalDate d = date.plusDays(1); d.getMonth() == date.getMonth(); d = d.plusDays(1)) {
      if (isBusinessDay(d)) {
        return false;
      }
    }
    return true;
  }

  /**
   * True if a fire may happen at {@code instant}.
   *
   * @param instant the instant
   * @return whether the calendar allows it
   */
  public boolean allows(Instant instant) {
    return nextAllowed(instant).filter(instant::equals).isPresent();
  }

  /**
   * The first allowed instant at or after {@code instant}: itself if allowed, else the start of the
   * next allowed stretch. Empty if none lies within {@value #MAX_LOOK_AHEAD_DAYS} days (a calendar
   * that excludes everything).
   *
   * @param instant where to start looking
   * @return the first allowed instant at or after it, or empty
   */
  public Optional<Instant> nextAllowed(Instant instant) {
    if (days.isEmpty()) {
      return Optional.empty();
    }
    LocalDate date;
    try {
      date = instant.atZone(zone).toLocalDate();
    } catch (java.time.DateTimeException e) {
      return Optional.empty(); // beyond the supported range
    }
    for (int i = 0; i <= MAX_LOOK_AHEAD_DAYS; i++, date = date.plusDays(1)) {
      if (!allowsDate(date)) {
        continue;
      }
      Instant open = from == null ? date.atStartOfDay(zone).toInstant() : at(date, from);
      Instant close =
          until == null ? date.plusDays(1).atStartOfDay(zone).toInstant() : at(date, until);
      if (instant.isBefore(open)) {
        return Optional.of(open);
      }
      if (instant.isBefore(close)) {
        return Optional.of(instant);
      }
    }
    return Optional.empty();
  }

  private Instant at(LocalDate date, LocalTime time) {
    return ZonedDateTime.of(date, time, zone).toInstant();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BusinessCalendar c
        && zone.equals(c.zone)
        && days.equals(c.days)
        && excluded.equals(c.excluded)
        && Objects.equals(from, c.from)
        && Objects.equals(until, c.until)
        && lastBusinessDay == c.lastBusinessDay;
  }

  @Override
  public int hashCode() {
    return Objects.hash(zone, days, excluded, from, until, lastBusinessDay);
  }

  @Override
  public String toString() {
    return "BusinessCalendar[zone="
        + zone
        + ", days="
        + days
        + (excluded.isEmpty() ? "" : ", excluded=" + excluded)
        + (from != null ? ", between " + from + " and " + until : "")
        + (lastBusinessDay ? ", last business day of the month" : "")
        + "]";
  }
}
