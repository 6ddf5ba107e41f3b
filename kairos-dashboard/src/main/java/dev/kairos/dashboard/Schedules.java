package dev.kairos.dashboard;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Schedule;
import dev.kairos.engine.CronPreview;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Schedules, misfire policies and calendars in words, and a stored job's coming fire times (its
 * calendar and jitter applied): what the dashboard's pages and the command-line tool show.
 */
public final class Schedules {
  private Schedules() {}

  /**
   * For example "every 5 minutes (cron 0 0/5 * * * ?, Europe/Berlin)" or "every 5m (fixed rate)".
   *
   * @param s the schedule
   * @return the description
   */
  public static String describe(Schedule s) {
    if (s instanceof Schedule.FixedRate r) {
      return "every " + human(r.period()) + " (fixed rate)";
    }
    if (s instanceof Schedule.FixedDelay d) {
      return human(d.delay()) + " after each run ends (fixed delay)";
    }
    if (s instanceof Schedule.Once o) {
      return o.at() != null ? "once, at " + o.at() : "once, " + human(o.delay()) + " after created";
    }
    if (s instanceof Schedule.Cron c) {
      String words;
      try {
        words = CronPreview.describe(c.expression(), c.syntax(), Locale.ENGLISH);
      } catch (IllegalArgumentException e) {
        words = "invalid cron expression";
      }
      return words
          + " (cron "
          + c.expression()
          + ", "
          + (c.zone() == null ? "default zone" : c.zone().getId())
          + ")";
    }
    return String.valueOf(s);
  }

  /**
   * For example "fire once (threshold 1s)".
   *
   * @param m the misfire policy
   * @return the description
   */
  public static String describe(Misfire m) {
    String policy;
    if (m instanceof Misfire.CatchUp c) {
      policy = c.max() == Integer.MAX_VALUE ? "catch up" : "catch up newest " + c.max();
      if (c.window() != null) {
        policy += " within " + human(c.window());
      }
    } else if (m instanceof Misfire.FireOnce) {
      policy = "fire once";
    } else {
      policy = "skip";
    }
    return policy + " (threshold " + human(m.threshold()) + ")";
  }

  /**
   * A duration as ISO-8601 without the "PT", lower case: 5m, 1h30m, 0.5s, 24h.
   *
   * @param d the duration
   * @return the short text
   */
  public static String human(Duration d) {
    return d == null ? "" : d.toString().substring(2).toLowerCase(Locale.ROOT);
  }

  /**
   * The zone a job's times are best read in: its cron zone, else {@code fallback}.
   *
   * @param spec the job definition
   * @param fallback the zone for jobs without a cron zone
   * @return the zone
   */
  public static ZoneId zoneOf(JobSpec spec, ZoneId fallback) {
    return spec.schedule() instanceof Schedule.Cron c && c.zone() != null ? c.zone() : fallback;
  }

  /**
   * The job's next {@code n} fire times from its stored next fire time: a fixed rate or cron
   * timetable continues from it; a fixed delay's later fires depend on when runs end, and a
   * one-shot has one, so those give only the stored one. The job's calendar and jitter are not
   * applied; {@link #upcoming} applies them.
   *
   * @param info the stored job
   * @param n how many fire times at most
   * @return up to {@code n} fire times; empty if the job has no next fire
   */
  public static List<Instant> nextFires(JobInfo info, int n) {
    Instant next = info.nextFireTime();
    if (next == null || n <= 0) {
      return List.of();
    }
    List<Instant> fires = new ArrayList<>(n);
    fires.add(next);
    Schedule s = info.spec().schedule();
    if (s instanceof Schedule.FixedRate r) {
      for (int i = 1; i < n; i++) {
        fires.add(next.plus(r.period().multipliedBy(i)));
      }
    } else if (s instanceof Schedule.Cron) {
      JobSpec timetable = info.spec().startAt(null).initialDelay(null);
      for (Instant t : CronPreview.nextFireTimes(timetable, next, n, ZoneId.of("UTC"))) {
        if (t.isAfter(next) && fires.size() < n) {
          fires.add(t);
        }
      }
    }
    return fires;
  }

  /**
   * How many excluded dates {@link #describe(BusinessCalendar)} names before it counts the rest.
   */
  static final int DATES_NAMED = 5;

  /**
   * A stored job's coming fires as its calendar and jitter make them, or why its calendar could not
   * be applied.
   *
   * @param fires the coming fires in order, each with its due time and the slots its calendar
   *     excluded before it; empty if the job has no next fire
   * @param problem why the calendar could not be applied (naming it), or empty; with a problem,
   *     {@code fires} holds only the stored next fire
   */
  public record Upcoming(List<CronPreview.Fire> fires, Optional<String> problem) {
    /**
     * Copies the list.
     *
     * @param fires the coming fires
     * @param problem why the calendar could not be applied, or empty
     */
    public Upcoming {
      fires = List.copyOf(fires);
    }
  }

  /**
   * The job's next {@code n} fires from its stored next fire time, with its calendar (looked up in
   * {@code calendars}) and its jitter applied as the scheduler applies them: a fixed rate or cron
   * timetable continues from the stored fire; a fixed delay or one-shot gives only the stored one.
   * Slots the calendar excludes before the stored fire are not shown (the store keeps no record of
   * them). A calendar that is not stored is reported as a problem naming it, never thrown.
   *
   * @param info the stored job
   * @param calendars the stored calendars by name, usually {@code scheduler::calendar}
   * @param n how many fires at most
   * @return the fires, or the stored fire and the problem
   */
  public static Upcoming upcoming(
      JobInfo info, Function<String, Optional<BusinessCalendar>> calendars, int n) {
    JobSpec spec = info.spec();
    Optional<String> name = spec.calendar();
    BusinessCalendar calendar = name.flatMap(calendars).orElse(null);
    Instant next = info.nextFireTime();
    if (name.isPresent() && calendar == null) {
      String problem =
          "calendar '"
              + name.get()
              + "' is not stored: the scheduler does not fire this job until it is stored"
              + " again (putCalendar) or the job is rescheduled without it";
      return new Upcoming(stored(spec, next, n), Optional.of(problem));
    }
    if (next == null || n <= 0) {
      return new Upcoming(List.of(), Optional.empty());
    }
    Schedule s = spec.schedule();
    List<CronPreview.Fire> fires = new ArrayList<>(n);
    try {
      if (s instanceof Schedule.FixedRate) {
        JobSpec timetable = spec.startAt(next).initialDelay(null);
        fires.addAll(CronPreview.nextFires(timetable, calendar, next, n, ZoneOffset.UTC));
      } else if (s instanceof Schedule.Cron) {
        // the first cron slot after (next - 1ns) is next itself when next is a slot
        JobSpec timetable = spec.startAt(null).initialDelay(null);
        fires.addAll(
            CronPreview.nextFires(timetable, calendar, next.minusNanos(1), n, ZoneOffset.UTC));
      }
    } catch (IllegalArgumentException e) {
      return new Upcoming(
          stored(spec, next, n),
          Optional.of("the timetable cannot be previewed: " + e.getMessage()));
    }
    boolean covered =
        !fires.isEmpty()
            && (fires.get(0).fire().equals(next) || fires.get(0).excluded().contains(next));
    if (!covered) {
      // a moved fire, or a kind without a timetable to continue: the stored fire comes first
      fires.add(0, new CronPreview.Fire(next, CronPreview.dueTime(spec, next), List.of(), 0));
    }
    return new Upcoming(fires.subList(0, Math.min(n, fires.size())), Optional.empty());
  }

  private static List<CronPreview.Fire> stored(JobSpec spec, Instant next, int n) {
    return next == null || n <= 0
        ? List.of()
        : List.of(new CronPreview.Fire(next, CronPreview.dueTime(spec, next), List.of(), 0));
  }

  /**
   * For example "Monday to Friday, 08:00 to 18:00, except 2026-12-25 and 2026-12-26
   * (Europe/Berlin)". Names the first {@value #DATES_NAMED} excluded dates and counts the rest.
   *
   * @param c the calendar
   * @return the description
   */
  public static String describe(BusinessCalendar c) {
    StringBuilder b = new StringBuilder(days(c.days()));
    if (c.from().isPresent()) {
      b.append(", ").append(c.from().get()).append(" to ").append(c.until().orElseThrow());
    }
    List<LocalDate> dates = List.copyOf(c.excludedDates());
    if (!dates.isEmpty()) {
      List<String> named =
          dates.stream().limit(DATES_NAMED).map(LocalDate::toString).collect(Collectors.toList());
      if (dates.size() > DATES_NAMED) {
        named.add((dates.size() - DATES_NAMED) + " more dates");
      }
      b.append(", except ").append(joined(named));
    }
    if (c.lastBusinessDayOnly()) {
      b.append("; only the last business day of each month");
    }
    return b.append(" (").append(c.zone().getId()).append(")").toString();
  }

  /**
   * What a job does with a fire its calendar excludes, for example "skip excluded fires".
   *
   * @param policy the calendar policy
   * @return the description
   */
  public static String describe(CalendarPolicy policy) {
    return policy == CalendarPolicy.NEXT_ALLOWED
        ? "move excluded fires to the next allowed time"
        : "skip excluded fires";
  }

  private static String days(Set<DayOfWeek> days) {
    if (days.size() == 7) {
      return "every day";
    }
    if (days.isEmpty()) {
      return "no day";
    }
    if (days.equals(EnumSet.range(DayOfWeek.MONDAY, DayOfWeek.FRIDAY))) {
      return "Monday to Friday";
    }
    return joined(
        days.stream()
            .sorted()
            .map(d -> d.getDisplayName(TextStyle.FULL, Locale.ENGLISH))
            .collect(Collectors.toList()));
  }

  /** "a", "a and b", "a, b and c". */
  private static String joined(List<String> words) {
    if (words.size() <= 1) {
      return String.join("", words);
    }
    return String.join(", ", words.subList(0, words.size() - 1))
        + " and "
        + words.get(words.size() - 1);
  }
}
