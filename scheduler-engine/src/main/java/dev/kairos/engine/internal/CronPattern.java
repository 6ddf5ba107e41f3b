package dev.kairos.engine.internal;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.temporal.TemporalAdjusters;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Optional;

/**
 * A compiled cron expression as a predicate on local date-times, with no zone: which wall-clock
 * seconds it matches, the first match at or after a local date-time, and how many matches lie in a
 * local interval. Immutable and thread-safe. Built by {@link CronCompiler}; the zone and the
 * daylight-saving rules are {@link CronTimetable}'s business.
 *
 * <p>Day-of-month special values, as in Quartz: {@code L} the last day of the month, {@code L-n}
 * {@code n} days before it, {@code LW} the last weekday (Monday to Friday) of the month, {@code nW}
 * the weekday nearest to day {@code n} within the same month (none in a month without day {@code
 * n}). Day-of-week: {@code xL} the last weekday {@code x} of the month, {@code x#k} the {@code
 * k}-th one.
 */
final class CronPattern {
  /*
   * Design: the time-of-day fields (second, minute, hour) never depend on the date, so the matches
   * of one matching day are the product hours x minutes x seconds, kept as three sorted arrays.
   * That gives O(log) rank and select within a day, and whole days count as one product size:
   * counting the fires of a per-second schedule over three days of downtime touches three days,
   * not 259,200 seconds. Dates are matched by a small predicate of our own (month, year and the
   * two day rules); cron-utils is used only to parse, because its own next-execution search is
   * slow for frequent schedules (tens of microseconds a call) and gets some W dates wrong (30W in
   * a month whose 30th is a Sunday).
   */

  /** A date search gives up after this many years: the Gregorian calendar repeats every 400. */
  static final int SEARCH_YEARS = 400;

  private final int[] hours;
  private final int[] minutes;
  private final int[] seconds;

  /** Matches per matching day: {@code hours.length * minutes.length * seconds.length}. */
  private final long perDay;

  private final DateRule dates;

  CronPattern(int[] hours, int[] minutes, int[] seconds, DateRule dates) {
    this.hours = hours.clone();
    this.minutes = minutes.clone();
    this.seconds = seconds.clone();
    this.perDay = (long) hours.length * minutes.length * seconds.length;
    this.dates = dates;
    if (perDay == 0) {
      throw new IllegalArgumentException("a time field matches no value");
    }
  }

  /** True when the whole-second local date-time {@code t} matches. */
  boolean matches(LocalDateTime t) {
    return t.getNano() == 0
        && Arrays.binarySearch(seconds, t.getSecond()) >= 0
        && Arrays.binarySearch(minutes, t.getMinute()) >= 0
        && Arrays.binarySearch(hours, t.getHour()) >= 0
        && dates.matches(t.toLocalDate());
  }

  /** True when the date matches the day, month and year fields. */
  boolean matchesDate(LocalDate d) {
    return dates.matches(d);
  }

  /**
   * The first match at or after {@code t} (rounded up to a whole second); empty if none within
   * {@link #SEARCH_YEARS} years.
   */
  Optional<LocalDateTime> ceiling(LocalDateTime t) {
    LocalDateTime from = t.getNano() == 0 ? t : t.withNano(0).plusSeconds(1);
    LocalDate day = from.toLocalDate();
    if (dates.matches(day)) {
      long rank = rank(from.toLocalTime().toSecondOfDay());
      if (rank < perDay) {
        return Optional.of(day.atTime(select(rank)));
      }
    }
    return nextDate(day.plusDays(1)).map(d -> d.atTime(select(0)));
  }

  /**
   * How many matches lie in [{@code from}, {@code to}), both whole seconds, counting at most about
   * {@code cap} (the result may pass the cap by less than one day's matches).
   */
  long count(LocalDateTime from, LocalDateTime to, long cap) {
    if (!from.isBefore(to)) {
      return 0;
    }
    LocalDate first = from.toLocalDate();
    LocalDate last = to.toLocalDate();
    int fromSecond = from.toLocalTime().toSecondOfDay();
    int toSecond = to.toLocalTime().toSecondOfDay();
    if (first.equals(last)) {
      return dates.matches(first) ? rank(toSecond) - rank(fromSecond) : 0;
    }
    long n = dates.matches(first) ? perDay - rank(fromSecond) : 0;
    Optional<LocalDate> d = nextDate(first.plusDays(1));
    while (d.isPresent() && d.get().isBefore(last) && n < cap) {
      n += perDay;
      d = nextDate(d.get().plusDays(1));
    }
    if (n < cap && dates.matches(last)) {
      n += rank(toSecond);
    }
    return n;
  }

  /** The first matching date at or after {@code from}; empty if none within the search bound. */
  Optional<LocalDate> nextDate(LocalDate from) {
    LocalDate limit =
        from.getYear() > LocalDate.MAX.getYear() - SEARCH_YEARS
            ? LocalDate.MAX
            : from.plusYears(SEARCH_YEARS);
    LocalDate d = from;
    while (d.isBefore(limit)) {
      if (!dates.yearMatches(d.getYear())) {
        int year = dates.nextYear(d.getYear());
        if (year < 0) {
          return Optional.empty();
        }
        d = LocalDate.of(year, 1, 1);
      } else if (!dates.monthMatches(d.getMonthValue())) {
        if (d.getYear() == LocalDate.MAX.getYear() && d.getMonthValue() == 12) {
          return Optional.empty();
        }
        d = d.withDayOfMonth(1).plusMonths(1);
      } else if (dates.matches(d)) {
        return Optional.of(d);
      } else if (d.equals(LocalDate.MAX)) {
        return Optional.empty();
      } else {
        d = d.plusDays(1);
      }
    }
    return Optional.empty();
  }

  /** How many times of day match strictly before second-of-day {@code s}. */
  private long rank(int s) {
    int h = s / 3600;
    int m = s / 60 % 60;
    int sec = s % 60;
    long perHour = (long) minutes.length * seconds.length;
    long n = below(hours, h) * perHour;
    if (Arrays.binarySearch(hours, h) >= 0) {
      n += below(minutes, m) * (long) seconds.length;
      if (Arrays.binarySearch(minutes, m) >= 0) {
        n += below(seconds, sec);
      }
    }
    return n;
  }

  /** The time of day of rank {@code k} (0-based), {@code 0 <= k < perDay}. */
  private LocalTime select(long k) {
    int s = seconds[(int) (k % seconds.length)];
    int m = minutes[(int) (k / seconds.length % minutes.length)];
    int h = hours[(int) (k / seconds.length / minutes.length)];
    return LocalTime.of(h, m, s);
  }

  /** How many values of the sorted array are below {@code v}. */
  private static int below(int[] sorted, int v) {
    int i = Arrays.binarySearch(sorted, v);
    return i >= 0 ? i : -i - 1;
  }

  /**
   * The date fields: month, optional year, and the day-of-month and day-of-week rules, combined
   * with AND (Quartz, Spring) or, when {@code either}, with OR (crontab, when both are restricted).
   *
   * @param months allowed months, bits 1 to 12
   * @param years allowed years, or null for any year
   * @param dayOfMonth the day-of-month rule, or null when unrestricted
   * @param dayOfWeek the day-of-week rule, or null when unrestricted
   * @param either true to match when either day rule matches
   */
  record DateRule(
      BitSet months, BitSet years, DayOfMonth dayOfMonth, DayOfWeekRule dayOfWeek, boolean either) {

    boolean matches(LocalDate d) {
      if (!monthMatches(d.getMonthValue()) || !yearMatches(d.getYear())) {
        return false;
      }
      if (dayOfMonth == null || dayOfWeek == null) {
        return (dayOfMonth == null || dayOfMonth.matches(d))
            && (dayOfWeek == null || dayOfWeek.matches(d));
      }
      return either
          ? dayOfMonth.matches(d) || dayOfWeek.matches(d)
          : dayOfMonth.matches(d) && dayOfWeek.matches(d);
    }

    boolean monthMatches(int month) {
      return months.get(month);
    }

    boolean yearMatches(int year) {
      return years == null || (year >= 0 && years.get(year));
    }

    /** The first allowed year after {@code year}, or -1. */
    int nextYear(int year) {
      return years == null ? year + 1 : years.nextSetBit(Math.max(year + 1, 0));
    }
  }

  /**
   * A day-of-month rule.
   *
   * @param days plain days, bits 1 to 31
   * @param fromLast offsets from the last day ({@code L} is 0, {@code L-3} is 3)
   * @param nearestWeekday days {@code n} of {@code nW}
   * @param lastWeekday true for {@code LW}
   */
  record DayOfMonth(BitSet days, int[] fromLast, int[] nearestWeekday, boolean lastWeekday) {
    boolean matches(LocalDate d) {
      int day = d.getDayOfMonth();
      if (days.get(day)) {
        return true;
      }
      int length = d.lengthOfMonth();
      for (int offset : fromLast) {
        if (day == length - offset) {
          return true;
        }
      }
      for (int n : nearestWeekday) {
        if (n <= length && day == nearestWeekday(d.withDayOfMonth(n))) {
          return true;
        }
      }
      return lastWeekday && day == nearestWeekday(d.withDayOfMonth(length));
    }

    /** The weekday nearest to {@code d} in its month (Quartz's {@code W}). */
    private static int nearestWeekday(LocalDate d) {
      int day = d.getDayOfMonth();
      if (d.getDayOfWeek() == DayOfWeek.SATURDAY) {
        return day == 1 ? 3 : day - 1;
      }
      if (d.getDayOfWeek() == DayOfWeek.SUNDAY) {
        return day == d.lengthOfMonth() ? day - 2 : day + 1;
      }
      return day;
    }
  }

  /**
   * A day-of-week rule, in ISO numbering (Monday 1 to Sunday 7).
   *
   * @param days plain days of the week, bits 1 to 7
   * @param lastOfMonth days {@code x} of {@code xL}: the last such day of the month
   * @param nth pairs {@code {x, k}} of {@code x#k}: the {@code k}-th such day of the month
   */
  record DayOfWeekRule(BitSet days, int[] lastOfMonth, int[][] nth) {
    boolean matches(LocalDate d) {
      int dow = d.getDayOfWeek().getValue();
      if (days.get(dow)) {
        return true;
      }
      for (int x : lastOfMonth) {
        if (x == dow && d.plusWeeks(1).getMonthValue() != d.getMonthValue()) {
          return true;
        }
      }
      for (int[] xk : nth) {
        if (xk[0] == dow
            && d.with(TemporalAdjusters.dayOfWeekInMonth(xk[1], DayOfWeek.of(dow))).equals(d)) {
          return true;
        }
      }
      return false;
    }
  }
}
