package dev.kairos;

/** How a run ended. */
public enum RunOutcome {
  /** The job returned normally. */
  SUCCESS,
  /** The job threw. */
  FAILURE,
  /** The job was interrupted by the scheduler's shutdown after its grace period. */
  INTERRUPTED
}
