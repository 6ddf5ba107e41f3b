package dev.kairos.spi;

/** Why a job's next run is due. */
public enum FireKind {
  /** A fire on the job's timetable; its due time is its scheduled fire time. */
  TIMETABLE,
  /** A retry of the failed fire at {@link JobRecord#lastScheduledFireTime()}. */
  RETRY,
  /** An extra fire requested by {@code triggerNow}; the timetable is not moved. */
  TRIGGER
}
