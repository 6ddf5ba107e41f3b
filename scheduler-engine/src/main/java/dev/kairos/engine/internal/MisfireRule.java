package dev.kairos.engine.internal;

import dev.kairos.Misfire;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The misfire rule, as one pure function of (timetable, oldest due fire, now, policy). The
 * dispatcher calls it every time it could start a timetable fire, so overruns, busy workers and
 * downtime before a restart are handled by the same code.
 */
public final class MisfireRule {
  private MisfireRule() {}

  /**
   * What to do now with a job whose oldest due fire is {@code due}.
   *
   * @param timetable the job's timetable
   * @param due the oldest fire not yet run (at or before {@code now})
   * @param now the moment the job could start
   * @param policy the job's misfire policy
   */
  public static Decision decide(Timetable timetable, Instant due, Instant now, Misfire policy) {
    if (!isBehind(due, now, policy.threshold())) {
      return Decision.run(due, 0, 0);
    }
    if (policy instanceof Misfire.CatchUp c) {
      if (c.max() == Integer.MAX_VALUE) {
        return Decision.run(due, 1, 0);
      }
      long missed = timetable.countDue(due, now, Long.MAX_VALUE);
      if (missed <= c.max()) {
        return Decision.run(due, 1, 0);
      }
      long dropped = missed - c.max();
      Instant first = timetable.nth(due, dropped).orElse(due);
      return Decision.run(first, 1, dropped);
    }
    long missed = timetable.countDue(due, now, Long.MAX_VALUE);
    Instant newest = timetable.nth(due, Math.max(missed - 1, 0)).orElse(due);
    if (policy instanceof Misfire.FireOnce) {
      return Decision.run(newest, (int) Math.min(missed, Integer.MAX_VALUE), missed - 1);
    }
    return new Decision(null, 0, missed, timetable.successor(newest));
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
