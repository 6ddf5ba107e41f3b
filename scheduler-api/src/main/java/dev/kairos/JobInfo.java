package dev.kairos;

import java.time.Instant;
import java.util.Optional;

/**
 * A snapshot of a stored job: its definition and where it stands.
 *
 * @param spec the job's definition (with a cron zone resolved)
 * @param state scheduled, paused, running or complete
 * @param nextFireTime the scheduled time of its next fire on the timetable, without jitter (the run
 *     is due at it plus the fire's jitter offset, see {@link JobSpec#jitter}); null when complete
 * @param lastScheduledFireTime the scheduled time of the last fire that ran; null if none ran
 * @param lastStart when the last run started; null if none ran
 * @param lastEnd when the last run ended; null if none ended
 * @param lastOutcome how the last run ended; null if none ran
 * @param lastError the last failure, as the run's {@link RunRecord#error()}; null if the last run
 *     succeeded
 * @param runCount runs so far, retries included
 * @param failureCount failed runs so far
 */
public record JobInfo(
    JobSpec spec,
    JobState state,
    Instant nextFireTime,
    Instant lastScheduledFireTime,
    Instant lastStart,
    Instant lastEnd,
    RunOutcome lastOutcome,
    String lastError,
    long runCount,
    long failureCount) {

  /**
   * The job's key.
   *
   * @return the key
   */
  public String key() {
    return spec.key();
  }

  /**
   * The scheduled time of the next fire, if the job has one.
   *
   * @return the next fire time, or empty if none
   */
  public Optional<Instant> next() {
    return Optional.ofNullable(nextFireTime);
  }
}
