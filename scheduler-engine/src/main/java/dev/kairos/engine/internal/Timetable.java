package dev.kairos.engine.internal;

import java.time.Instant;
import java.util.Optional;

/**
 * The fire times of one schedule, as pure functions of instants: no clock, no state. The misfire
 * rule and the dispatcher only ever ask these questions, so every schedule kind (fixed rate, fixed
 * delay, one-shot, cron) plugs in the same way.
 */
public interface Timetable {

  /**
   * The first fire of a job scheduled at {@code now}, before any run; empty if it never fires.
   * Honours the spec's start instant or initial delay where the schedule kind uses them.
   */
  Optional<Instant> first(Instant now);

  /**
   * The scheduled fire that follows the fire at {@code fire} on the timetable, ignoring run
   * durations; used to enumerate missed fires. Empty if there is none.
   */
  Optional<Instant> successor(Instant fire);

  /**
   * The next fire after a run of {@code fire} that ended at {@code runEnd}: the successor for
   * timetable schedules; {@code runEnd + delay} for fixed delay.
   */
  default Optional<Instant> afterRun(Instant fire, Instant runEnd) {
    return successor(fire);
  }

  /** A walk over successors stops after this many fires. */
  long WALK_CAP = 100_000;

  /**
   * How many fires lie in [{@code from}, {@code now}] when {@code from} is itself a fire, counting
   * at most {@code cap}. Arithmetic where the schedule allows, else by walking successors (which
   * also stops at {@link #WALK_CAP}).
   */
  default long countDue(Instant from, Instant now, long cap) {
    cap = Math.min(cap, WALK_CAP);
    long n = 0;
    Optional<Instant> f = Optional.of(from);
    while (f.isPresent() && !f.get().isAfter(now) && n < cap) {
      n++;
      f = successor(f.get());
    }
    return n;
  }

  /**
   * The {@code n}-th successor of {@code fire} ({@code n = 0} is {@code fire} itself); empty if the
   * timetable ends first.
   */
  default Optional<Instant> nth(Instant fire, long n) {
    Optional<Instant> f = Optional.of(fire);
    for (long i = 0; i < n && f.isPresent(); i++) {
      f = successor(f.get());
    }
    return f;
  }
}
