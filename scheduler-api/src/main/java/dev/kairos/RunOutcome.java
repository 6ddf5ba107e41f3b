package dev.kairos;

/** How a run ended. */
public enum RunOutcome {
  /** The job returned normally. */
  SUCCESS,
  /** The job threw. */
  FAILURE,
  /** The job was interrupted by the scheduler's shutdown after its grace period. */
  INTERRUPTED,
  /**
   * No run: a history entry for fires a misfire or overlap policy dropped. Its {@link
   * RunRecord#scheduledFireTime()} is the oldest dropped fire, {@link RunRecord#missedFires()} how
   * many were dropped, {@link RunRecord#error()} says which fires and which policy ("skipped 37
   * fire(s) from A to B by policy P"); start and end are when it was decided. Fires coalesced into
   * a run ({@code Misfire.fireOnce()}) are not skipped: that run's {@code missedFires()} counts
   * them.
   */
  SKIPPED
}
