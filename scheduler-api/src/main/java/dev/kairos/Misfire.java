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
 *   <tr><td>{@link CatchUp#within(Duration) catchUp().within(w)}</td><td>the missed fires
 *       scheduled at most w before now; older ones are dropped</td><td>the timetable</td></tr>
 *   <tr><td>{@link #fireOnce()} (default)</td><td>one run, with the newest missed fire's scheduled
 *       time, standing for all of them</td><td>the next future fire</td></tr>
 *   <tr><td>{@link #skip()}</td><td>nothing</td><td>the next future fire</td></tr>
 * </table>
 *
 * <p>A catch-up policy may also have a <em>catch-up window</em> ({@link CatchUp#within(Duration)}):
 * when behind, missed fires older than the window (scheduled more than the window before the moment
 * the job is judged) are dropped and counted, so a job that was down for a year does not replay a
 * year. With {@code catchUp(n).within(w)} both limits apply; if every missed fire is older than the
 * window, nothing runs and the job waits for its next future fire. A window is judged only when the
 * job is behind, so a window shorter than the threshold drops nothing the threshold lets run on
 * time.
 */
public sealed interface Misfire permits Misfire.CatchUp, Misfire.FireOnce, Misfire.Skip {

  /** The default threshold: a fire more than one second late is a misfire. */
  Duration DEFAULT_THRESHOLD = Duration.ofSeconds(1);

  /**
   * How late a fire may start and still count as on time.
   *
   * @return the threshold
   */
  Duration threshold();

  /**
   * This policy with another threshold (validated when the job is scheduled: not negative).
   *
   * @param threshold how late a fire may start, not negative
   * @return a policy like this one with that threshold
   */
  Misfire threshold(Duration threshold);

  /**
   * Runs every missed fire, oldest first (ScheduledThreadPoolExecutor's fixed-rate behaviour).
   *
   * @return the catch-up policy without a limit
   */
  static CatchUp catchUp() {
    return new CatchUp(Integer.MAX_VALUE, DEFAULT_THRESHOLD, null);
  }

  /**
   * Runs only the newest {@code max} missed fires (validated when scheduled: at least 1).
   *
   * @param max how many of the newest missed fires to run, at least 1
   * @return the limited catch-up policy
   */
  static CatchUp catchUp(int max) {
    return new CatchUp(max, DEFAULT_THRESHOLD, null);
  }

  /**
   * Runs once for all missed fires, then resumes the timetable. The default policy.
   *
   * @return the fire-once policy
   */
  static Misfire fireOnce() {
    return new FireOnce(DEFAULT_THRESHOLD);
  }

  /**
   * Runs none of the missed fires and waits for the next future one.
   *
   * @return the skip policy
   */
  static Misfire skip() {
    return new Skip(DEFAULT_THRESHOLD);
  }

  /**
   * Make up missed fires, at most {@code max} of them (the newest), and, with a window, only those
   * scheduled within the window before now.
   *
   * @param max at most this many missed fires are made up; {@link Integer#MAX_VALUE} for all
   * @param threshold how late a fire may be and still be on time
   * @param window the catch-up window, or null for none: when behind, fires scheduled more than
   *     this before now are dropped (validated when scheduled: positive)
   */
  record CatchUp(int max, Duration threshold, Duration window) implements Misfire {
    /**
     * A catch-up policy without a window.
     *
     * @param max at most this many missed fires are made up
     * @param threshold how late a fire may be and still be on time
     */
    public CatchUp(int max, Duration threshold) {
      this(max, threshold, null);
    }

    @Override
    public CatchUp threshold(Duration threshold) {
      return new CatchUp(max, threshold, window);
    }

    /**
     * This policy with a catch-up window: when the job is behind, missed fires scheduled more than
     * {@code window} before now are dropped and counted (listener {@code firesDropped}, log); the
     * rest are made up. Validated when the job is scheduled: positive.
     *
     * <pre>{@code
     * // hourly; after an outage, make up at most the last 6 hours of fires
     * JobSpec.named("sync").handler("sync").fixedRate(Duration.ofHours(1))
     *     .misfire(Misfire.catchUp().within(Duration.ofHours(6)));
     * }</pre>
     *
     * @param window how far back missed fires are still made up
     * @return the changed copy
     */
    public CatchUp within(Duration window) {
      return new CatchUp(max, threshold, window);
    }

    /**
     * The catch-up window, if set.
     *
     * @return the window, or empty for none
     */
    public java.util.Optional<Duration> catchUpWindow() {
      return java.util.Optional.ofNullable(window);
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
