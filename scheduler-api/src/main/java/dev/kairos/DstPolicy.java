package dev.kairos;

/**
 * What a cron job does with local times that a daylight-saving transition skips (the spring-forward
 * gap) or repeats (the fall-back overlap). Stored with the job.
 *
 * @param gap what to do with a fire time that falls in a gap
 * @param overlap what to do with a fire time that occurs twice
 */
public record DstPolicy(Gap gap, Overlap overlap) {

  /** For a local time that does not exist. */
  public enum Gap {
    /** Fire once, at the first instant after the gap (the default). */
    SHIFT,
    /** Do not fire on that day. */
    SKIP
  }

  /** For a local time that exists twice. */
  public enum Overlap {
    /** Fire at the first occurrence only (the default). */
    FIRST,
    /** Fire at the second occurrence only. */
    LAST,
    /** Fire at both occurrences. */
    BOTH
  }

  private static final DstPolicy DEFAULT = new DstPolicy(Gap.SHIFT, Overlap.FIRST);

  /**
   * Shift gap times to the end of the gap; fire repeated times once, at the first occurrence.
   *
   * @return the default policy
   */
  public static DstPolicy defaults() {
    return DEFAULT;
  }

  /**
   * The default policy with another gap rule.
   *
   * @param gap what to do with a time that falls in a gap
   * @return a new policy
   */
  public DstPolicy gap(Gap gap) {
    return new DstPolicy(gap, overlap);
  }

  /**
   * The default policy with another overlap rule.
   *
   * @param overlap what to do with a time that occurs twice
   * @return a new policy
   */
  public DstPolicy overlap(Overlap overlap) {
    return new DstPolicy(gap, overlap);
  }
}
