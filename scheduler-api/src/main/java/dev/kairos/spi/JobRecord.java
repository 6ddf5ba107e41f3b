package dev.kairos.spi;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import java.time.Instant;

/**
 * A job as a store holds it: the definition, the schedule state the engine works from, and the run
 * statistics.
 *
 * @param spec the definition
 * @param state life-cycle state; {@code RUNNING} is set by {@link JobStore#runStarted} and cleared
 *     by {@link JobStore#runFinished}, so a row left {@code RUNNING} after a crash marks a fire to
 *     recover
 * @param nextFireTime scheduled time of the next timetable fire; null when complete
 * @param dueTime when the job's next run is due; null when it must not fire (paused, complete).
 *     Stores index it: the engine loads jobs by (due time, key)
 * @param dueKind why the next run is due
 * @param attempt the attempt number of the next run (1, or more for a retry)
 * @param lastScheduledFireTime scheduled time of the last fire that ran
 * @param lastStart start of the last run
 * @param lastEnd end of the last run
 * @param lastOutcome outcome of the last run
 * @param lastError message of the last failure, trimmed by the store
 * @param runCount runs so far
 * @param failureCount failed runs so far
 * @param version incremented by every change of definition or schedule state (not by statistics);
 *     conditional updates compare it
 */
public record JobRecord(
    JobSpec spec,
    JobState state,
    Instant nextFireTime,
    Instant dueTime,
    FireKind dueKind,
    int attempt,
    Instant lastScheduledFireTime,
    Instant lastStart,
    Instant lastEnd,
    RunOutcome lastOutcome,
    String lastError,
    long runCount,
    long failureCount,
    long version) {

  /**
   * A new job, never run, due at {@code first} (null: never).
   *
   * @param spec the definition
   * @param first the first due time, or null for none
   * @return the record: SCHEDULED (COMPLETE if {@code first} is null), no statistics
   */
  public static JobRecord fresh(JobSpec spec, Instant first) {
    return new JobRecord(
        spec,
        first == null ? JobState.COMPLETE : JobState.SCHEDULED,
        first,
        first,
        FireKind.TIMETABLE,
        1,
        null,
        null,
        null,
        null,
        null,
        0,
        0,
        0);
  }

  private static final java.util.concurrent.atomic.AtomicLong LAST_FIRST_VERSION =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * The version a store gives a job it creates: microseconds since the epoch, strictly increasing
   * within the process. A job deleted and created again under the same key so starts far above any
   * version its predecessor reached, and a write-back of the predecessor's last run (taken at one
   * of those versions) can never pass for a current one.
   *
   * @return a new version, above every one given before in this process
   */
  public static long firstVersion() {
    Instant now = Instant.now();
    long micros = Math.multiplyExact(now.getEpochSecond(), 1_000_000L) + now.getNano() / 1_000;
    return LAST_FIRST_VERSION.updateAndGet(last -> Math.max(last + 1, micros));
  }

  /**
   * The job's key.
   *
   * @return the key
   */
  public String key() {
    return spec.key();
  }

  /**
   * The cursor position of this record. Requires a due time.
   *
   * @return the due time and key of this record
   */
  public WindowCursor cursor() {
    return new WindowCursor(dueTime, key());
  }

  /**
   * This record with another definition.
   *
   * @param s the new definition
   * @return a copy with that definition
   */
  public JobRecord withSpec(JobSpec s) {
    return new JobRecord(
        s,
        state,
        nextFireTime,
        dueTime,
        dueKind,
        attempt,
        lastScheduledFireTime,
        lastStart,
        lastEnd,
        lastOutcome,
        lastError,
        runCount,
        failureCount,
        version);
  }

  /**
   * This record with another schedule state; statistics and version kept.
   *
   * @param newState the state
   * @param next the next timetable fire, or null
   * @param due the due time, or null
   * @param kind why the job is due
   * @param newAttempt the attempt number of the next run
   * @return a copy with that schedule state
   */
  public JobRecord withSchedule(
      JobState newState, Instant next, Instant due, FireKind kind, int newAttempt) {
    return new JobRecord(
        spec,
        newState,
        next,
        due,
        kind,
        newAttempt,
        lastScheduledFireTime,
        lastStart,
        lastEnd,
        lastOutcome,
        lastError,
        runCount,
        failureCount,
        version);
  }

  /**
   * This record with a one-off run requested ({@code triggerNow}): due at {@code at} as a trigger,
   * first attempt, the timetable's next fire kept; a RUNNING record becomes SCHEDULED, any other
   * state (PAUSED included) is kept. The one place that writes this change.
   *
   * @param at when the triggered run is due
   * @return a copy with the trigger
   */
  public JobRecord triggered(Instant at) {
    return withSchedule(
        state == JobState.RUNNING ? JobState.SCHEDULED : state,
        nextFireTime,
        at,
        FireKind.TRIGGER,
        1);
  }

  /**
   * This record with another version.
   *
   * @param v the new version
   * @return a copy with that version
   */
  public JobRecord withVersion(long v) {
    return new JobRecord(
        spec,
        state,
        nextFireTime,
        dueTime,
        dueKind,
        attempt,
        lastScheduledFireTime,
        lastStart,
        lastEnd,
        lastOutcome,
        lastError,
        runCount,
        failureCount,
        v);
  }

  /**
   * The public view of this record.
   *
   * @return the job info
   */
  public JobInfo toInfo() {
    return new JobInfo(
        spec,
        state,
        nextFireTime,
        lastScheduledFireTime,
        lastStart,
        lastEnd,
        lastOutcome,
        lastError,
        runCount,
        failureCount);
  }
}
