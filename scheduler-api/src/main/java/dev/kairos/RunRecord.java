package dev.kairos;

import java.time.Instant;

/**
 * One run in a job's history.
 *
 * @param key the job's key
 * @param scheduledFireTime the fire this run was for
 * @param start when it started
 * @param end when it ended
 * @param outcome how it ended
 * @param error the failure as {@link dev.kairos.spi.JobRules#errorText} writes it (its {@code
 *     toString()}, at most 2,000 characters, a NUL or half a surrogate pair as a backslash-u code);
 *     null on success
 * @param attempt 1 for the first attempt, more for retries
 * @param instance the scheduler instance that ran it
 * @param recovery true if the run repeated a fire whose earlier run was cut off by a crash or the
 *     loss of its instance, as {@link JobContext#recovery()} said
 * @param missedFires how many missed fires the run stood for, as {@link JobContext#missedFires()}
 *     said: 0 for a fire on time, 1 for each fire made up by catch-up, the number replaced for
 *     fire-once
 * @param backfill true for a run of {@link Scheduler#backfill}: it ran a past fire again on
 *     purpose, so its start minus its fire time is no lateness
 */
public record RunRecord(
    String key,
    Instant scheduledFireTime,
    Instant start,
    Instant end,
    RunOutcome outcome,
    String error,
    int attempt,
    String instance,
    boolean recovery,
    int missedFires,
    boolean backfill) {

  /**
   * A run of the schedule (no backfill run).
   *
   * @param key the job
   * @param scheduledFireTime the fire that ran
   * @param start start of the run
   * @param end end of the run
   * @param outcome how it ended
   * @param error failure message, or null
   * @param attempt its attempt number, from 1
   * @param instance id of the instance that ran it
   * @param recovery whether it repeated a fire whose run was cut off
   * @param missedFires how many missed fires it stood for
   */
  public RunRecord(
      String key,
      Instant scheduledFireTime,
      Instant start,
      Instant end,
      RunOutcome outcome,
      String error,
      int attempt,
      String instance,
      boolean recovery,
      int missedFires) {
    this(
        key,
        scheduledFireTime,
        start,
        end,
        outcome,
        error,
        attempt,
        instance,
        recovery,
        missedFires,
        false);
  }

  /**
   * A run of the schedule that was no recovery and stood for no missed fire.
   *
   * @param key the job
   * @param scheduledFireTime the fire that ran
   * @param start start of the run
   * @param end end of the run
   * @param outcome how it ended
   * @param error failure message, or null
   * @param attempt its attempt number, from 1
   * @param instance id of the instance that ran it
   */
  public RunRecord(
      String key,
      Instant scheduledFireTime,
      Instant start,
      Instant end,
      RunOutcome outcome,
      String error,
      int attempt,
      String instance) {
    this(key, scheduledFireTime, start, end, outcome, error, attempt, instance, false, 0, false);
  }
}
