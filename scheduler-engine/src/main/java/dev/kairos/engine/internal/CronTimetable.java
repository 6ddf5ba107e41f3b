package dev.kairos.engine.internal;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.Schedule;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Optional;

/**
 * A cron schedule's timetable: the matches of a {@link CronPattern} read in the job's zone, with
 * the job's {@link DstPolicy} applied to the local times that a transition skips or repeats. All
 * fires are whole seconds.
 *
 * <p><b>The rule.</b> Let {@code D} be the length of a zone transition (one hour in Berlin, 30
 * minutes on Lord Howe). A matching local time {@code L} in the transition's gap or overlap is
 * <em>periodic</em> when the expression also matches {@code L - D} and {@code L + D}: the
 * expression then fires at least as often as the clock jumps (every minute, every 30 minutes or
 * every hour in Berlin), and its fires follow real time through the transition. An instant {@code
 * t} is a fire when one of these holds:
 *
 * <ol>
 *   <li><b>ordinary</b>: the local time of {@code t} matches and occurs once that day;
 *   <li><b>overlap</b> (fall-back): the local time {@code L} of {@code t} matches and occurs twice,
 *       and either {@code L} is periodic (both occurrences fire) or the overlap policy picks this
 *       occurrence: {@code FIRST} the earlier, {@code LAST} the later, {@code BOTH} either;
 *   <li><b>gap</b> (spring-forward): {@code t} is the instant the gap ends, the gap policy is
 *       {@code SHIFT}, and some matching local time in the gap is not periodic. It fires once,
 *       however many gap times match, and once in all if the first local time after the gap matches
 *       too.
 * </ol>
 *
 * <p>So in Europe/Berlin, "daily at 02:30" fires at 03:00 CEST on the spring-forward Sunday under
 * {@code SHIFT} and not at all under {@code SKIP}; on the fall-back Sunday it fires at 02:30 CEST
 * ({@code FIRST}), 02:30 CET ({@code LAST}) or both ({@code BOTH}). "Every 30 minutes" fires at
 * 01:30 CET then 03:00 CEST in spring, and at 02:00, 02:30 CEST, 02:00, 02:30 CET, 03:00 in autumn,
 * whatever the policy. "Every hour at :30" keeps an hour between fires in both directions, while
 * "at 01:30 and 02:30" fires only once at 02:30 on the fall-back day under {@code FIRST}: 01:30 is
 * a match but 03:30 is not, so 02:30 is not periodic.
 */
final class CronTimetable implements Timetable {
  /*
   * Design: cron-utils returns a repeated local time twice and has had DST bugs, so the zone is
   * applied here. The instant line is cut at the zone's transitions into segments of one offset;
   * within a segment local time and instant move together, so the first fire at or after t is the
   * first allowed pattern match in t's segment (after a possible gap fire at the segment's start),
   * else in the next segment. Counting works segment by segment with the pattern's whole-day
   * arithmetic, subtracting the matches an overlap policy drops; nth is a binary search on that
   * count. Nothing walks fire by fire, so a per-second schedule behind by days stays cheap.
   */

  private final CronPattern pattern;
  private final ZoneRules rules;
  private final DstPolicy dst;
  private final Instant startAt;

  private CronTimetable(CronPattern pattern, ZoneRules rules, DstPolicy dst, Instant startAt) {
    this.pattern = pattern;
    this.rules = rules;
    this.dst = dst;
    this.startAt = startAt;
  }

  /** The timetable of a cron schedule whose zone is resolved. */
  static CronTimetable of(Schedule.Cron cron, Instant startAt) {
    return new CronTimetable(
        CronCompiler.compile(cron.expression(), syntax(cron)),
        cron.zone().getRules(),
        cron.dst() == null ? DstPolicy.defaults() : cron.dst(),
        startAt);
  }

  /**
   * Throws {@link IllegalArgumentException} naming the key, the expression and the problem if the
   * expression is invalid or can never fire (such as 30 February).
   */
  static void validate(String key, Schedule.Cron cron) {
    CronPattern pattern;
    try {
      pattern = CronCompiler.compile(cron.expression(), syntax(cron));
    } catch (IllegalArgumentException e) {
      throw SpecValidator.bad(key, e.getMessage());
    }
    if (pattern.nextDate(LocalDate.of(1970, 1, 1)).isEmpty()) {
      throw SpecValidator.bad(
          key,
          "cron expression '"
              + cron.expression()
              + "' never fires: no date matches its day-of-month, month, day-of-week and year"
              + " fields together");
    }
  }

  /**
   * Why a stored cron schedule cannot run ({@link #validate}'s message, naming the key), or null.
   * Window loads ask this of every cron row they read, so expressions found valid are remembered,
   * up to {@link #VALID_CACHE_SIZE}; then the memory starts again. Invalid ones are not kept.
   */
  static String problem(String key, Schedule.Cron cron) {
    Source source = new Source(cron.expression(), syntax(cron));
    if (VALID.contains(source)) {
      return null;
    }
    try {
      validate(key, cron);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    if (VALID.size() >= VALID_CACHE_SIZE) {
      VALID.clear();
    }
    VALID.add(source);
    return null;
  }

  private static final int VALID_CACHE_SIZE = 1024;

  /** Expressions {@link #problem} found valid. */
  private static final java.util.Set<Source> VALID =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private record Source(String expression, CronSyntax syntax) {}

  private static CronSyntax syntax(Schedule.Cron cron) {
    return cron.syntax() == null ? CronSyntax.QUARTZ : cron.syntax();
  }

  @Override
  public Optional<Instant> first(Instant now) {
    if (startAt != null && startAt.isAfter(now)) {
      return ceiling(startAt);
    }
    return successor(now);
  }

  @Override
  public Optional<Instant> successor(Instant fire) {
    Instant next = fire.truncatedTo(ChronoUnit.SECONDS);
    return next.equals(Instant.MAX.truncatedTo(ChronoUnit.SECONDS))
        ? Optional.empty()
        : ceiling(next.plusSeconds(1));
  }

  @Override
  public long countDue(Instant from, Instant now, long cap) {
    if (from.isAfter(now) || cap <= 0) {
      return 0;
    }
    try {
      return Math.min(
          count(up(from), now.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1), cap), cap);
    } catch (DateTimeException | ArithmeticException e) {
      return 0; // beyond the supported range of dates: no fires there
    }
  }

  @Override
  public Optional<Instant> nth(Instant fire, long n) {
    if (n <= 0) {
      return Optional.of(fire);
    }
    try {
      return nthAfter(up(fire), n);
    } catch (DateTimeException | ArithmeticException e) {
      return Optional.empty();
    }
  }

  /** The first fire at or after {@code t}; empty if none (or beyond the supported dates). */
  Optional<Instant> ceiling(Instant t) {
    try {
      return ceilingFire(up(t));
    } catch (DateTimeException | ArithmeticException e) {
      return Optional.empty();
    }
  }

  private Optional<Instant> ceilingFire(Instant from) {
    Instant t = from;
    Segment seg = segmentAt(t);
    while (true) {
      if (seg.start != null && !seg.start.isBefore(t) && gapFires(seg.startTransition)) {
        return Optional.of(seg.start);
      }
      Optional<LocalDateTime> match = pattern.ceiling(local(t, seg.offset));
      if (match.isEmpty()) {
        return Optional.empty();
      }
      Instant candidate = match.get().toInstant(seg.offset);
      if (seg.end == null || candidate.isBefore(seg.end)) {
        if (allowed(match.get(), seg.offset)) {
          return Optional.of(candidate);
        }
        t = candidate.plusSeconds(1);
      } else {
        // Not from the match: after a fall-back the next segment's local times start earlier.
        t = seg.end;
        seg = segmentAt(t);
      }
    }
  }

  /** The fires in [{@code from}, {@code to}), counting at most about {@code cap}. */
  private long count(Instant from, Instant to, long cap) {
    long n = 0;
    Instant t = from;
    Segment seg = segmentAt(t);
    while (t.isBefore(to) && n < cap) {
      Instant end = seg.end == null || seg.end.isAfter(to) ? to : seg.end;
      if (seg.start != null
          && !seg.start.isBefore(t)
          && gapFires(seg.startTransition)
          && !pattern.matches(local(seg.start, seg.offset))) {
        n++; // the gap fire, unless it coincides with a match at the end of the gap
      }
      long dropped = dropped(seg, local(t, seg.offset), local(end, seg.offset));
      n += pattern.count(local(t, seg.offset), local(end, seg.offset), plus(cap - n, dropped));
      n -= dropped;
      if (end.equals(to)) {
        break;
      }
      t = end;
      seg = segmentAt(t);
    }
    return n;
  }

  /** The fire {@code n >= 1} places after the fire at or after {@code fire}. */
  private Optional<Instant> nthAfter(Instant fire, long n) {
    // Invariant, once hi is found: count(fire, lo) <= n < count(fire, hi). The search ends with
    // hi = lo + 1 s, so the n-th fire is at lo.
    Instant lo = fire;
    long below = 0; // count(fire, lo)
    long span = 60;
    Instant hi;
    while (true) {
      Optional<Instant> next = ceilingFire(lo);
      if (next.isEmpty()) {
        return Optional.empty();
      }
      Instant base = next.get().isAfter(lo) ? next.get() : lo;
      hi = base.plusSeconds(span);
      long c = count(lo, hi, plus(n - below, 1));
      if (c > n - below) {
        break;
      }
      below += c;
      lo = hi;
      span = Math.min(span * 2, 400L * 366 * 86_400);
    }
    while (Duration.between(lo, hi).getSeconds() > 1) {
      Instant mid = lo.plusSeconds(Duration.between(lo, hi).getSeconds() / 2);
      long c = count(lo, mid, plus(n - below, 1));
      if (c > n - below) {
        hi = mid;
      } else {
        below += c;
        lo = mid;
      }
    }
    return Optional.of(lo);
  }

  /** True when the matching local time {@code l}, read at {@code offset}, is a fire. */
  private boolean allowed(LocalDateTime l, ZoneOffset offset) {
    ZoneOffsetTransition overlap = rules.getTransition(l);
    if (overlap == null || overlap.isGap() || periodic(l, overlap)) {
      return true;
    }
    return switch (dst.overlap()) {
      case FIRST -> offset.equals(overlap.getOffsetBefore());
      case LAST -> offset.equals(overlap.getOffsetAfter());
      case BOTH -> true;
    };
  }

  /** True when a gap that ends at a segment start makes a fire there (rule 3). */
  private boolean gapFires(ZoneOffsetTransition transition) {
    if (transition == null || !transition.isGap() || dst.gap() != DstPolicy.Gap.SHIFT) {
      return false;
    }
    LocalDateTime end = transition.getDateTimeAfter();
    Optional<LocalDateTime> l = pattern.ceiling(transition.getDateTimeBefore());
    while (l.isPresent() && l.get().isBefore(end)) {
      if (!periodic(l.get(), transition)) {
        return true;
      }
      l = pattern.ceiling(l.get().plusSeconds(1));
    }
    return false;
  }

  /** The number of matches in local [{@code a}, {@code b}) of the segment that rule 2 drops. */
  private long dropped(Segment seg, LocalDateTime a, LocalDateTime b) {
    if (dst.overlap() == DstPolicy.Overlap.BOTH) {
      return 0;
    }
    return droppedIn(seg.startTransition, seg.offset, a, b)
        + droppedIn(seg.endTransition, seg.offset, a, b);
  }

  private long droppedIn(
      ZoneOffsetTransition overlap, ZoneOffset offset, LocalDateTime a, LocalDateTime b) {
    if (overlap == null || overlap.isGap()) {
      return 0;
    }
    LocalDateTime from = max(a, overlap.getDateTimeAfter());
    LocalDateTime to = min(b, overlap.getDateTimeBefore());
    long n = 0;
    Optional<LocalDateTime> l = pattern.ceiling(from);
    while (l.isPresent() && l.get().isBefore(to)) {
      if (!allowed(l.get(), offset)) {
        n++;
      }
      l = pattern.ceiling(l.get().plusSeconds(1));
    }
    return n;
  }

  /** A matching local time in a transition's gap or overlap that fires at least every D. */
  private boolean periodic(LocalDateTime l, ZoneOffsetTransition transition) {
    Duration d = transition.getDuration().abs();
    return pattern.matches(l.minus(d)) && pattern.matches(l.plus(d));
  }

  /** The stretch of one offset that contains {@code t}. */
  private Segment segmentAt(Instant t) {
    ZoneOffsetTransition previous = rules.previousTransition(t.plusNanos(1));
    ZoneOffsetTransition next = rules.nextTransition(t);
    return new Segment(rules.getOffset(t), previous, next);
  }

  private static LocalDateTime local(Instant t, ZoneOffset offset) {
    return LocalDateTime.ofEpochSecond(t.getEpochSecond(), t.getNano(), offset);
  }

  /** {@code t} rounded up to a whole second. */
  private static Instant up(Instant t) {
    return t.getNano() == 0 ? t : t.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
  }

  /** {@code a + b} for non-negative values, saturating at {@link Long#MAX_VALUE}. */
  private static long plus(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  private static LocalDateTime max(LocalDateTime a, LocalDateTime b) {
    return a.isAfter(b) ? a : b;
  }

  private static LocalDateTime min(LocalDateTime a, LocalDateTime b) {
    return a.isBefore(b) ? a : b;
  }

  /**
   * Instants [{@code start}, {@code end}) with one offset; null bounds are open.
   *
   * @param offset the offset throughout
   * @param startTransition the transition at the start, or null for none
   * @param endTransition the transition at the end, or null for none
   */
  private record Segment(
      ZoneOffset offset,
      ZoneOffsetTransition startTransition,
      ZoneOffsetTransition endTransition,
      Instant start,
      Instant end) {
    Segment(ZoneOffset offset, ZoneOffsetTransition startTransition, ZoneOffsetTransition end) {
      this(
          offset,
          startTransition,
          end,
          startTransition == null ? null : startTransition.getInstant(),
          end == null ? null : end.getInstant());
    }
  }
}
