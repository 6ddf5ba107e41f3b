package dev.kairos;

/** The life-cycle state of a stored job. */
public enum JobState {
  /** Waiting for its next fire. */
  SCHEDULED,
  /** Kept, with its timetable, but not fired until resumed. */
  PAUSED,
  /** A run is in progress. */
  RUNNING,
  /** A one-shot job that has run (or was skipped); it fires no more. */
  COMPLETE
}
