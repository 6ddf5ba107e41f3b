package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.Schedule;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Random Quartz expressions (ranges, steps, lists, wrapping ranges, L, W, LW, #), zones and
 * instants over several decades, half of them near a transition, under every DST policy. Each
 * expression is generated together with an independent matcher; the fires are checked against a
 * minute-by-minute walk that applies the DST rule of {@link CronTimetable}'s Javadoc literally.
 */
class CronTimetablePropertyTest {
  private static final int CASES = 400;
  private static final List<ZoneId> ZONES =
      List.of(
              "Europe/Berlin",
              "America/New_York",
              "Australia/Lord_Howe",
              "UTC",
              "Asia/Kolkata",
              "America/Sao_Paulo",
              "Pacific/Chatham",
              "Europe/London",
              "America/Santiago",
              "Asia/Tehran")
          .stream()
          .map(ZoneId::of)
          .toList();
  private static final String[] DAY_NAMES = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
  private static final String[] MONTH_NAMES = {
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
  };

  /**
   * For every case: the fires walked by {@code successor} from {@code t} are each after the one
   * before, and over the window after {@code t} (6 days near a transition, else 24) a minute is a
   * fire exactly when the oracle says so; counting and nth agree with walking.
   */
  @Test
  void successor_randomExpressionsZonesAndInstants_walksExactlyTheFires() {
    Random random = new Random(20240331L);
    Stats stats = new Stats();
    for (int i = 0; i < CASES; i++) {
      ZoneId zone = ZONES.get(random.nextInt(ZONES.size()));
      boolean nearTransition = random.nextBoolean();
      Instant t = instant(random, zone, nearTransition);
      ZoneOffsetTransition transition = zone.getRules().nextTransition(t);
      Integer hour = // often fire in the hour the transition skips or repeats
          nearTransition && transition != null && random.nextInt(4) > 0
              ? min(transition.getDateTimeBefore(), transition.getDateTimeAfter()).getHour()
              : null;
      Expr expr = expression(random, hour);
      DstPolicy policy =
          new DstPolicy(
              DstPolicy.Gap.values()[random.nextInt(2)],
              DstPolicy.Overlap.values()[random.nextInt(3)]);
      Schedule.Cron cron = new Schedule.Cron(expr.text, zone, CronSyntax.QUARTZ, policy);
      CronTimetable timetable = CronTimetable.of(cron, null);
      Instant end = t.plus(nearTransition ? Duration.ofDays(6) : Duration.ofDays(24));
      String where =
          "case " + i + ": '" + expr.text + "' in " + zone + " " + policy + " after " + t;

      Set<Instant> fires = new HashSet<>();
      Instant previous = t;
      Optional<Instant> next = timetable.successor(t);
      assertThat(next).as(where).isPresent();
      while (next.isPresent() && !next.get().isAfter(end)) {
        assertThat(next.get()).as(where).isAfter(previous);
        fires.add(next.get());
        previous = next.get();
        next = timetable.successor(previous);
      }
      Oracle oracle = Oracle.of(expr, zone.getRules(), policy, t, next.orElse(previous));
      Instant limit = next.isPresent() && next.get().isAfter(end) ? end : previous;
      assertThat(oracle.isFire(next.orElse(previous))).as(where + " -> " + next).isTrue();
      for (Instant m = t.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
          !m.isAfter(limit);
          m = m.plusSeconds(60)) {
        Verdict verdict = oracle.verdict(m);
        if (fires.contains(m) != verdict.fire) {
          assertThat(fires.contains(m))
              .as(where + ": " + verdict + " at " + m)
              .isEqualTo(verdict.fire);
        }
        stats.count(verdict);
      }
      checkCountingAgreesWithWalking(timetable, fires, where);
    }
    // The cases reach the situations the DST rule is about, so a broken rule would show.
    assertThat(stats.gapFires).as("gap fires").isGreaterThan(5);
    assertThat(stats.overlapFires).as("overlap fires").isGreaterThan(100);
    assertThat(stats.overlapDropped).as("overlap matches dropped").isGreaterThan(50);
    assertThat(stats.minutes).isGreaterThan(CASES * 4_000L);
  }

  /** What the walk went through. */
  private static final class Stats {
    long minutes;
    long gapFires;
    long overlapFires;
    long overlapDropped;

    void count(Verdict verdict) {
      minutes++;
      switch (verdict) {
        case GAP_FIRE -> gapFires++;
        case OVERLAP_FIRE -> overlapFires++;
        case OVERLAP_DROPPED -> overlapDropped++;
        default -> {}
      }
    }
  }

  private static void checkCountingAgreesWithWalking(
      CronTimetable timetable, Set<Instant> fires, String where) {
    List<Instant> sorted = fires.stream().sorted().toList();
    if (sorted.size() < 2) {
      return;
    }
    Instant first = sorted.get(0);
    Instant last = sorted.get(sorted.size() - 1);
    assertThat(timetable.countDue(first, last, Long.MAX_VALUE)).as(where).isEqualTo(sorted.size());
    int k = sorted.size() / 2;
    assertThat(timetable.nth(first, k)).as(where).contains(sorted.get(k));
    assertThat(timetable.nth(first, sorted.size() - 1)).as(where).contains(last);
  }

  private static LocalDateTime min(LocalDateTime a, LocalDateTime b) {
    return a.isBefore(b) ? a : b;
  }

  /** An instant in 2000-2035, or within three days before one of the zone's transitions. */
  private static Instant instant(Random random, ZoneId zone, boolean nearTransition) {
    Instant base =
        Instant.parse("2000-01-01T00:00:00Z")
            .plusSeconds((long) (random.nextDouble() * 36 * 365.25 * 86_400));
    ZoneOffsetTransition transition = zone.getRules().nextTransition(base);
    if (nearTransition
        && transition != null
        && transition.getInstant().isBefore(Instant.parse("2036-01-01T00:00:00Z"))) {
      return transition
          .getInstant()
          .minusSeconds(random.nextInt(3 * 86_400))
          .plusNanos(random.nextInt(3) == 0 ? random.nextInt(1_000_000_000) : 0);
    }
    return base;
  }

  // ---- the oracle: the DST rule applied literally, minute by minute ----

  /** What the oracle says about one minute. */
  private enum Verdict {
    NONE(false),
    ORDINARY(true),
    OVERLAP_FIRE(true),
    OVERLAP_DROPPED(false),
    GAP_FIRE(true);

    final boolean fire;

    Verdict(boolean fire) {
      this.fire = fire;
    }
  }

  /**
   * @param gaps the instants of the gap transitions between the instants asked about
   */
  private record Oracle(Expr expr, ZoneRules rules, DstPolicy policy, Set<Instant> gaps) {
    static Oracle of(Expr expr, ZoneRules rules, DstPolicy policy, Instant from, Instant to) {
      Set<Instant> gaps = new HashSet<>();
      for (ZoneOffsetTransition tr = rules.nextTransition(from.minusSeconds(60));
          tr != null && !tr.getInstant().isAfter(to);
          tr = rules.nextTransition(tr.getInstant())) {
        if (tr.isGap()) {
          gaps.add(tr.getInstant());
        }
      }
      return new Oracle(expr, rules, policy, gaps);
    }

    boolean isFire(Instant t) {
      return verdict(t).fire;
    }

    Verdict verdict(Instant t) {
      ZoneOffset offset = rules.getOffset(t);
      LocalDateTime local = LocalDateTime.ofEpochSecond(t.getEpochSecond(), t.getNano(), offset);
      if (expr.matches(local)) {
        ZoneOffsetTransition overlap = rules.getTransition(local);
        if (overlap == null) {
          return Verdict.ORDINARY;
        }
        boolean picked =
            switch (policy.overlap()) {
              case FIRST -> offset.equals(overlap.getOffsetBefore());
              case LAST -> offset.equals(overlap.getOffsetAfter());
              case BOTH -> true;
            };
        if (picked || periodic(local, overlap)) {
          return Verdict.OVERLAP_FIRE;
        }
        return isGapFire(t) ? Verdict.GAP_FIRE : Verdict.OVERLAP_DROPPED;
      }
      return isGapFire(t) ? Verdict.GAP_FIRE : Verdict.NONE;
    }

    boolean isGapFire(Instant t) {
      if (policy.gap() != DstPolicy.Gap.SHIFT || !gaps.contains(t)) {
        return false;
      }
      ZoneOffsetTransition gap = rules.previousTransition(t.plusNanos(1));
      for (LocalDateTime l = gap.getDateTimeBefore();
          l.isBefore(gap.getDateTimeAfter());
          l = l.plusMinutes(1)) {
        if (expr.matches(l) && !periodic(l, gap)) {
          return true;
        }
      }
      return false;
    }

    private boolean periodic(LocalDateTime l, ZoneOffsetTransition transition) {
      Duration d = transition.getDuration().abs();
      return expr.matches(l.minus(d)) && expr.matches(l.plus(d));
    }
  }

  // ---- random expressions, each with its own matcher ----

  /** An expression (second always 0) and an independent matcher for it. */
  record Expr(
      String text,
      IntPredicate minute,
      IntPredicate hour,
      IntPredicate month,
      Predicate<LocalDate> days) {
    boolean matches(LocalDateTime l) {
      return l.getSecond() == 0
          && l.getNano() == 0
          && minute.test(l.getMinute())
          && hour.test(l.getHour())
          && month.test(l.getMonthValue())
          && days.test(l.toLocalDate());
    }
  }

  private record Field(String text, IntPredicate test) {
    Field or(int v) {
      return new Field(text + "," + v, test.or(x -> x == v));
    }
  }

  private record DayField(String text, Predicate<LocalDate> test) {}

  /** A random expression that, if {@code hint} is not null, matches hour {@code hint}. */
  private static Expr expression(Random r, Integer hint) {
    while (true) {
      Field minute = list(r, 0, 59, null);
      Field hour = list(r, 0, 23, null);
      if (hint != null && !hour.test.test(hint)) {
        int h = hint;
        hour = r.nextBoolean() ? new Field("" + h, v -> v == h) : hour.or(h);
      }
      Field month = r.nextInt(10) < 7 ? new Field("*", v -> true) : list(r, 1, 12, MONTH_NAMES);
      DayField dom;
      DayField dow;
      int mode = r.nextInt(20);
      if (mode < 7) {
        dom = dayOfMonth(r);
        dow = new DayField("?", d -> true);
      } else if (mode < 13) {
        dom = new DayField("?", d -> true);
        dow = dayOfWeek(r);
      } else if (mode < 17) {
        dom = new DayField("*", d -> true);
        dow = new DayField("?", d -> true);
      } else {
        dom = new DayField("?", d -> true);
        dow = new DayField("*", d -> true);
      }
      String text =
          "0 " + minute.text + " " + hour.text + " " + dom.text + " " + month.text + " " + dow.text;
      try {
        CronTimetable.validate(
            "property", new Schedule.Cron(text, ZoneOffset.UTC, CronSyntax.QUARTZ, null));
      } catch (IllegalArgumentException e) {
        continue; // never fires (31 February) or a combination cron-utils does not parse
      }
      return new Expr(
          text, minute.test, hour.test, month.test, d -> dom.test.test(d) && dow.test.test(d));
    }
  }

  /** One to three items of a numeric field, comma-separated. */
  private static Field list(Random r, int min, int max, String[] names) {
    if (r.nextInt(4) == 0) {
      return new Field("*", v -> true);
    }
    int n = 1 + (r.nextInt(3) == 0 ? 1 + r.nextInt(2) : 0);
    List<String> texts = new ArrayList<>();
    IntPredicate test = v -> false;
    for (int i = 0; i < n; i++) {
      Field item = item(r, min, max, names);
      texts.add(item.text);
      test = test.or(item.test);
    }
    return new Field(String.join(",", texts), test);
  }

  private static Field item(Random r, int min, int max, String[] names) {
    int a = min + r.nextInt(max - min + 1);
    int b = min + r.nextInt(max - min + 1);
    int p = 1 + r.nextInt(Math.max(1, (max - min) / 2));
    switch (r.nextInt(6)) {
      case 0:
        return new Field(name(a, min, names), v -> v == a);
      case 1:
        {
          int lo = Math.min(a, b);
          int hi = Math.max(a, b);
          return new Field(
              name(lo, min, names) + "-" + name(hi, min, names), v -> v >= lo && v <= hi);
        }
      case 2:
        // a wrapping range such as 22-3 (Quartz reads it as 22..max, min..3)
        if (a == b) {
          return new Field("" + a, v -> v == a);
        }
        {
          int lo = Math.min(a, b);
          int hi = Math.max(a, b);
          return new Field(hi + "-" + lo, v -> v >= hi || v <= lo);
        }
      case 3:
        return new Field(a + "/" + p, v -> v >= a && (v - a) % p == 0);
      case 4:
        return new Field("*/" + p, v -> (v - min) % p == 0);
      default:
        {
          int lo = Math.min(a, b);
          int hi = Math.max(a, b);
          return new Field(lo + "-" + hi + "/" + p, v -> v >= lo && v <= hi && (v - lo) % p == 0);
        }
    }
  }

  private static String name(int v, int min, String[] names) {
    return names != null && v - min < names.length && v - min >= 0 && v % 3 == 0
        ? names[v - min]
        : "" + v;
  }

  private static DayField dayOfMonth(Random r) {
    int n = 1 + (r.nextInt(3) == 0 ? 1 : 0);
    List<String> texts = new ArrayList<>();
    Predicate<LocalDate> test = d -> false;
    for (int i = 0; i < n; i++) {
      DayField item = dayOfMonthItem(r);
      texts.add(item.text);
      test = test.or(item.test);
    }
    return new DayField(String.join(",", texts), test);
  }

  private static DayField dayOfMonthItem(Random r) {
    switch (r.nextInt(8)) {
      case 0:
        return new DayField("L", d -> d.getDayOfMonth() == d.lengthOfMonth());
      case 1:
        {
          int k = 1 + r.nextInt(7);
          return new DayField("L-" + k, d -> d.getDayOfMonth() == d.lengthOfMonth() - k);
        }
      case 2:
      case 3:
        {
          int day = r.nextInt(4) == 0 ? 28 + r.nextInt(4) : 1 + r.nextInt(31);
          return new DayField(day + "W", d -> isNearestWeekday(d, day));
        }
      case 4:
        return new DayField("LW", CronTimetablePropertyTest::isLastWeekday);
      default:
        {
          Field f = item(r, 1, 31, null);
          return new DayField(f.text, d -> f.test.test(d.getDayOfMonth()));
        }
    }
  }

  private static DayField dayOfWeek(Random r) {
    int n = 1 + (r.nextInt(3) == 0 ? 1 : 0);
    List<String> texts = new ArrayList<>();
    Predicate<LocalDate> test = d -> false;
    for (int i = 0; i < n; i++) {
      DayField item = dayOfWeekItem(r);
      texts.add(item.text);
      test = test.or(item.test);
    }
    return new DayField(String.join(",", texts), test);
  }

  /** Quartz numbers days 1 (SUN) to 7 (SAT). */
  private static DayField dayOfWeekItem(Random r) {
    int q = 1 + r.nextInt(7);
    DayOfWeek day = quartzDay(q);
    switch (r.nextInt(6)) {
      case 0:
        return new DayField(
            q + "L", d -> d.getDayOfWeek() == day && d.plusDays(7).getMonth() != d.getMonth());
      case 1:
        {
          int k = 1 + r.nextInt(5);
          return new DayField(
              DAY_NAMES[q - 1] + "#" + k,
              d -> d.getDayOfWeek() == day && (d.getDayOfMonth() - 1) / 7 + 1 == k);
        }
      default:
        {
          Field f = item(r, 1, 7, DAY_NAMES);
          return new DayField(f.text, d -> f.test.test(quartzNumber(d.getDayOfWeek())));
        }
    }
  }

  private static DayOfWeek quartzDay(int q) {
    return q == 1 ? DayOfWeek.SUNDAY : DayOfWeek.of(q - 1);
  }

  private static int quartzNumber(DayOfWeek d) {
    return d == DayOfWeek.SUNDAY ? 1 : d.getValue() + 1;
  }

  private static boolean isWeekday(LocalDate d) {
    return d.getDayOfWeek() != DayOfWeek.SATURDAY && d.getDayOfWeek() != DayOfWeek.SUNDAY;
  }

  /** Quartz's nW: the weekday nearest to day n, not leaving the month; none if no day n. */
  private static boolean isNearestWeekday(LocalDate d, int n) {
    if (n > d.lengthOfMonth()) {
      return false;
    }
    LocalDate target = d.withDayOfMonth(n);
    if (isWeekday(target)) {
      return d.equals(target);
    }
    List<LocalDate> candidates = new ArrayList<>();
    for (int delta = 1; delta <= 3 && candidates.isEmpty(); delta++) {
      for (LocalDate c : List.of(target.minusDays(delta), target.plusDays(delta))) {
        if (c.getMonth() == target.getMonth() && isWeekday(c)) {
          candidates.add(c);
        }
      }
    }
    return candidates.get(0).equals(d);
  }

  private static boolean isLastWeekday(LocalDate d) {
    LocalDate last = d.with(TemporalAdjusters.lastDayOfMonth());
    while (!isWeekday(last)) {
      last = last.minusDays(1);
    }
    return d.equals(last);
  }
}
