package dev.kairos.engine.internal;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import java.time.Instant;
import java.util.Optional;

/**
 * A timetable seen through a {@link BusinessCalendar}: each slot of the base timetable that the
 * calendar excludes is dropped ({@link CalendarPolicy#SKIP}: the fire is the next base slot the
 * calendar allows) or moved to the next allowed instant ({@link CalendarPolicy#NEXT_ALLOWED}). A
 * pure function of instants, as every timetable.
 *
 * <p>Skipping does not walk the base slots one by one through an excluded stretch (an every-second
 * job over a long weekend has hundreds of thousands): it jumps to the first base slot at or after
 * the calendar's next allowed instant, by arithmetic for fixed rates and delays and by the cron
 * search for cron. A calendar with no allowed instant within {@link
 * BusinessCalendar#MAX_LOOK_AHEAD_DAYS} days ends the timetable.
 */
record CalendarTimetable(Timetable base, BusinessCalendar calendar, CalendarPolicy policy)
    implements Timetable {

  /** Most jumps one settle makes before it gives up (never reached by a valid calendar). */
  static final int MAX_JUMPS = 10_000;

  @Override
  public Optional<Instant> first(Instant now) {
    return base.first(now).flatMap(this::settle);
  }

  @Override
  public Optional<Instant> successor(Instant fire) {
    return base.successor(fire).flatMap(this::settle);
  }

  @Override
  public Optional<Instant> afterRun(Instant fire, Instant runEnd) {
    return base.afterRun(fire, runEnd).flatMap(this::settle);
  }

  /**
   * The fire a base slot comes to: the slot itself if the calendar allows it, else under SKIP the
   * first later base slot it allows, under NEXT_ALLOWED the next allowed instant. Empty if none.
   */
  Optional<Instant> settle(Instant slot) {
    if (policy == CalendarPolicy.NEXT_ALLOWED) {
      return calendar.nextAllowed(slot);
    }
    Instant s = slot;
    for (int i = 0; i < MAX_JUMPS; i++) {
      Optional<Instant> open = calendar.nextAllowed(s);
      if (open.isEmpty()) {
        return Optional.empty();
      }
      if (open.get().equals(s)) {
        return Optional.of(s);
      }
      Optional<Instant> next = atOrAfter(s, open.get());
      if (next.isEmpty()) {
        return Optional.empty();
      }
      s = next.get();
    }
    return Optional.empty();
  }

  /** The first base slot at or after {@code bound}, starting from the slot {@code s < bound}. */
  private Optional<Instant> atOrAfter(Instant s, Instant bound) {
    if (base instanceof Timetables.FixedRate || base instanceof Timetables.FixedDelay) {
      long n = base.countDue(s, bound.minusNanos(1), Long.MAX_VALUE);
      return base.nth(s, Math.max(1, n));
    }
    if (base instanceof CronTimetable) {
      // cron's successor is the first slot at or after the next whole second of its argument
      boolean whole = bound.getNano() == 0;
      Optional<Instant> next = base.successor(whole ? bound.minusSeconds(1) : bound);
      return next.filter(n -> n.isAfter(s)).or(() -> base.successor(s));
    }
    Optional<Instant> next = base.successor(s);
    for (int i = 0; i < WALK_CAP && next.isPresent() && next.get().isBefore(bound); i++) {
      next = base.successor(next.get());
    }
    return next;
  }

  /** The base slots a SKIP calendar dropped in a stretch: how many, the oldest and newest. */
  record Skipped(long count, Instant oldest, Instant newest) {
    static final Skipped NONE = new Skipped(0, null, null);
  }

  /**
   * The base slots a SKIP calendar dropped from {@code from} (a fire of this timetable) up to, not
   * including, {@code to}: those between each two fires of this timetable in that stretch. NONE
   * under NEXT_ALLOWED, whose excluded fires move rather than drop. Walks this timetable's fires in
   * the stretch (at most {@link #WALK_CAP}) and counts each gap's base slots (by arithmetic for
   * fixed rates; cron's count also stops at the cap).
   */
  Skipped skipped(Instant from, Instant to) {
    if (policy != CalendarPolicy.SKIP || from == null || to == null || !from.isBefore(to)) {
      return Skipped.NONE;
    }
    long count = 0;
    Instant oldest = null;
    Instant newest = null;
    Instant f = from;
    for (int walked = 0; walked < WALK_CAP && f.isBefore(to); walked++) {
      Optional<Instant> gapStart = base.successor(f);
      Instant g = successor(f).filter(n -> n.isBefore(to)).orElse(to);
      if (gapStart.isPresent() && gapStart.get().isBefore(g)) {
        long n = base.countDue(gapStart.get(), g.minusNanos(1), WALK_CAP);
        if (n > 0) {
          count += n;
          oldest = oldest == null ? gapStart.get() : oldest;
          newest = base.nth(gapStart.get(), n - 1).orElse(gapStart.get());
        }
      }
      f = g;
    }
    return count == 0 ? Skipped.NONE : new Skipped(count, oldest, newest);
  }
}
