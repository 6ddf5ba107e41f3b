package dev.kairos.engine.internal;

import dev.kairos.Misfire;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The misfire rule, as one pure function of (timetable, oldest due fire, now, policy). The
 * dispatcher calls it every time it could start a timetable fire, so overruns, busy workers and
 * downtime before a restart are handled by the same code.
 */
public final class MisfireRule {
  private MisfireRule() {}

  /**
   * What to do now with a job whose oldest due fire is {@code due}, without jitter.
   *
   * @param timetable the job's timetable
   * @param due the oldest fire not yet run (at or before {@code now})
   * @param now the moment the job could start
   * @param policy the job's misfire policy
   */
  public static Decision decide(Timetable timetable, Instant due, Instant now, Misfire policy) {
    return decide(timetable, due, UnaryOperator.identity(), now, policy);
  }

  /**
   * What to do now with a job whose oldest fire not yet run is scheduled at {@code fire}, each fire
   * {@code t} being due (jittered) at {@code dueOf(t)}.
   *
   * <p>Lateness is measured from the due time, so jitter never makes an on-time fire a misfire.
   * Once behind, the missed fires are those whose slots have passed, except the newest if it is not
   * due yet (its jittered due time still ahead: it will run on time; with jitter shorter than the
   * gaps of the timetable, as a fixed rate enforces, no other can be undue). They are counted and
   * aged by their scheduled times: {@code catchUp(n)} keeps the newest n, a catch-up window keeps
   * those scheduled at most the window before {@code now}; if a window leaves nothing, nothing runs
   * and the job waits for its next fire.
   *
   * @param timetable the job's timetable
   * @param fire the scheduled time of the oldest fire not yet run (at or before {@code now})
   * @param dueOf the due time of a fire: the fire plus its jitter offset
   * @param now the moment the job could start
   * @param policy the job's misfire policy
   */
  public static Decision decide(
      Timetable timetable,
      Instant fire,
      UnaryOperator<Instant> dueOf,
      Instant now,
      Misfire policy) {
    if (!isBehind(dueOf.apply(fire), now, policy.threshold())) {
      return Decision.run(fire, 0, 0);
    }
    if (policy instanceof Misfire.CatchUp c && c.max() == Integer.MAX_VALUE && c.window() == null) {
      return Decision.run(fire, 1, 0); // one at a time, each judged again: no count needed
    }
    long missed = missed(timetable, fire, dueOf, now);
    if (policy instanceof Misfire.CatchUp c) {
      return catchUp(timetable, fire, now, c, missed);
    }
    Instant newest = timetable.nth(fire, missed - 1).orElse(fire);
    if (policy instanceof Misfire.FireOnce) {
      return Decision.run(newest, (int) Math.min(missed, Integer.MAX_VALUE), missed - 1);
    }
    return new Decision(null, 0, missed, timetable.successor(newest));
  }

  /**
   * The fires from {@code fire} whose slots have passed, less the newest if not due: at least 1.
   */
  private static long missed(
      Timetable timetable, Instant fire, UnaryOperator<Instant> dueOf, Instant now) {
    long missed = Math.max(1, timetable.countDue(fire, now, Long.MAX_VALUE));
    if (missed > 1) {
      Instant newest = timetable.nth(fire, missed - 1).orElse(fire);
      if (dueOf.apply(newest).isAfter(now)) {
        missed--;
      }
    }
    return missed;
  }

  private static Decision catchUp(
      Timetable timetable, Instant fire, Instant now, Misfire.CatchUp c, long missed) {
    long dropped = Math.max(0, missed - c.max());
    if (c.window() != null) {
      // Fires scheduled strictly before now - window are older than the window.
      Instant cutoff = minus(now, c.window());
      Instant lastOlder = cutoff == null ? null : minus(cutoff, Duration.ofNanos(1));
      long older = lastOlder == null ? 0 : timetable.countDue(fire, lastOlder, missed);
      dropped = Math.max(dropped, older);
    }
    if (dropped == 0) {
      return Decision.run(fire, 1, 0);
    }
    if (dropped >= missed) {
      Instant newest = timetable.nth(fire, missed - 1).orElse(fire);
      return new Decision(null, 0, missed, timetable.successor(newest));
    }
    Instant first = timetable.nth(fire, dropped).orElse(fire);
    return Decision.run(first, 1, dropped);
  }

  /** {@code a - d}, or null if that is before {@link Instant#MIN}. */
  private static Instant minus(Instant a, Duration d) {
    try {
      return a.minus(d);
    } catch (ArithmeticException | java.time.DateTimeException e) {
      return null;
    }
  }

  /** True when {@code due} is more than {@code threshold} before {@code now}. */
  public static boolean isBehind(Instant due, Instant now, Duration threshold) {
    return Duration.between(due, now).compareTo(threshold) > 0;
  }

  /**
   * The outcome of the rule.
   *
   * @param fire the scheduled fire time to run now, or null to run nothing
   * @param missedFires how many missed fires the run stands for (see {@code
   *     JobContext.missedFires})
   * @param dropped how many fires are dropped (not run, not stood for by the run, except the fires
   *     a {@code fireOnce} run stands for beyond itself)
   * @param nextWhenNoRun when nothing runs: the job's next fire (empty: the timetable ended)
   */
  public record Decision(
      Instant fire, int missedFires, long dropped, Optional<Instant> nextWhenNoRun) {
    static Decision run(Instant fire, int missedFires, long dropped) {
      return new Decision(fire, missedFires, dropped, Optional.empty());
    }

    /** True when a run is to start. */
    public boolean runs() {
      return fire != null;
    }
  }
}
