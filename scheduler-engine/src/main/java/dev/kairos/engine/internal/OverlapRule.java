package dev.kairos.engine.internal;

import dev.kairos.Overlap;
import java.time.Instant;

/**
 * The overlap policy as a pure function: given the fire that would follow a run (by the timetable)
 * and the run's start and end, which fire follows it under the job's {@link Overlap} policy, and
 * how many fires that came due during the run it drops. No clock, no state.
 *
 * <p>A fire came due during the run when it is after the run's start and at or before its end. If
 * the following fire was already due when the run started, the job is working through a backlog
 * that the misfire rule judges; the overlap policy leaves it alone.
 *
 * <p>{@link Overlap#replace()} keeps what {@link Overlap#bufferOne()} keeps: its interruption of
 * the run is the {@link RunReplacer}'s business, and once the run has returned, the newest fire
 * that came due during it runs next.
 */
final class OverlapRule {
  private OverlapRule() {}

  /**
   * The outcome: the next fire (null if the timetable ends), and the dropped fires, the oldest
   * first ({@code oldestDropped} null when none).
   */
  record Decision(Instant next, long dropped, Instant oldestDropped) {
    static Decision keep(Instant next) {
      return new Decision(next, 0, null);
    }
  }

  /**
   * Applies {@code policy} after a run.
   *
   * @param tt the job's timetable
   * @param policy the job's overlap policy
   * @param next the fire that follows the run by the timetable alone (null if none)
   * @param start when the run started
   * @param end when the run ended
   */
  static Decision after(Timetable tt, Overlap policy, Instant next, Instant start, Instant end) {
    if (next == null
        || policy == null
        || policy instanceof Overlap.Forbid
        || policy instanceof Overlap.Allow
        || !next.isAfter(start)
        || next.isAfter(end)) {
      return Decision.keep(next);
    }
    long during = tt.countDue(next, end, Timetable.WALK_CAP); // at least 1: next itself
    if (policy instanceof Overlap.BufferOne || policy instanceof Overlap.Replace) {
      if (during <= 1) {
        return Decision.keep(next);
      }
      Instant newest = tt.nth(next, during - 1).orElse(null);
      return new Decision(newest, during - 1, next);
    }
    // Skip: every fire due by the end goes; the first after the end is next. A walk stopped by
    // its cap leaves the next fire at or before the end: judged, then, by the misfire rule.
    Instant first = tt.nth(next, during).orElse(null);
    return new Decision(first, during, next);
  }
}
