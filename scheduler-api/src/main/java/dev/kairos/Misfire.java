package dev.kairos;

import java.time.Duration;

/**
 * What a job does with fires it missed: because a run overran, the workers were busy, or the
 * application was down.
 *
 * <p>A job is <em>behind</em> when, at the moment it could start, its oldest due fire is older than
 * the policy's {@link #threshold()} (default {@link #DEFAULT_THRESHOLD}). Within the threshold,
 * fires run normally, one after another. When behind:
 *
 * <table>
 *   <caption>Misfire policies</caption>
 *   <tr><th>policy</th><th>runs</th><th>then</th></tr>
 *   <tr><td>{@link #catchUp()}</td><td>every missed fire, oldest first, back to back</td>
 *       <td>the timetable</td></tr>
 *   <tr><td>{@link #catchUp(int) catchUp(n)}</td><td>the newest n missed fires; older ones are
 *       dropped</td><td>the timetable</td></tr>
 *   <tr><td>{@link #fireOnce()} (default)</td><td>one run, with the newest missed fire's scheduled
 *       time, standing for all of them</td><td>the next future fire</td></tr>
 *   <tr><td>{@link #skip()}</td><td>nothing</td><td>the next future fire</td></tr>
 * </table>
 */
public sealed interface Misfire permits Misfire.CatchUp, Misfire.FireOnce, Misfire.Skip {

  /** The default threshold: a fire more than one second late is a misfire. */
  Duration DEFAULT_THRESHOLD = Duration.ofSeconds(1);

  /** How late a fire may start and still count as on time. */
  Duration threshold();

  /** This policy with another threshold (validated when the job is scheduled: not negative). */
  Misfire threshold(Duration threshold);

  /** Runs every missed fire, oldest first (ScheduledThreadPoolExecutor's fixed-rate behaviour). */
  static Misfire catchUp() {
    return new CatchUp(Integer.MAX_VALUE, DEFAULT_THRESHOLD);
  }

  /** Runs only the newest {@code max} missed fires (validated when scheduled: at least 1). */
  static Misfire catchUp(int max) {
    return new CatchUp(max, DEFAULT_THRESHOLD);
  }

  /** Runs once for all missed fires, then resumes the timetable. The default policy. */
  static Misfire fireOnce() {
    return new FireOnce(DEFAULT_THRESHOLD);
  }

  /** Runs none of the missed fires and waits for the next future one. */
  static Misfire skip() {
    return new Skip(DEFAULT_THRESHOLD);
  }

  /**
   * Make up missed fires, at most {@code max} of them (the newest).
   *
   * @param max at most this many missed fires are made up; {@link Integer#MAX_VALUE} for all
   * @param threshold how late a fire may be and still be on time
   */
  record CatchUp(int max, Duration threshold) implements Misfire {
    @Override
    public CatchUp threshold(Duration threshold) {
      return new CatchUp(max, threshold);
    }
  }

  /**
   * Run once for all missed fires.
   *
   * @param threshold how late a fire may be and still be on time
   */
  record FireOnce(Duration threshold) implements Misfire {
    @Override
    public FireOnce threshold(Duration threshold) {
      return new FireOnce(threshold);
    }
  }

  /**
   * Drop missed fires.
   *
   * @param threshold how late a fire may be and still be on time
   */
  record Skip(Duration threshold) implements Misfire {
    @Override
    public Skip threshold(Duration threshold) {
      return new Skip(threshold);
    }
  }
}
