package dev.kairos.spi;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import java.time.Instant;

/**
 * A job as a store holds it, in three named parts: the definition, the schedule state the engine
 * works from, and the run statistics; and a version.
 *
 * @param spec the definition
 * @param schedule the schedule state: state, next fire, due time and kind, attempt
 * @param stats the run statistics: last run and counts
 * @param version incremented by every change of definition or schedule state (not by statistics);
 *     conditional updates compare it
 */
public record JobRecord(JobSpec spec, ScheduleState schedule, RunStats stats, long version) {

  /**
   * Checks that every part is present.
   *
   * @param spec the definition
   * @param schedule the schedule state: state, next fire, due time and kind, attempt
   * @param stats the run statistics: last run and counts
   * @param version incremented by every change of definition or schedule state (not by statistics);
   *     conditional updates compare it
   * @throws NullPointerException naming a missing part
   */
  public JobRecord {
    java.util.Objects.requireNonNull(spec, "spec");
    java.util.Objects.requireNonNull(schedule, "schedule");
    java.util.Objects.requireNonNull(stats, "stats");
  }

  /**
   * A new job, never run, due at {@code first} (null: never).
   *
   * @param spec the definition
   * @param first the first due time, or null for none
   * @return the record: SCHEDULED (COMPLETE if {@code first} is null), no statistics
   */
  public static JobRecord fresh(JobSpec spec, Instant first) {
    return new JobRecord(spec, ScheduleState.first(first), RunStats.NONE, 0);
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
    return new WindowCursor(dueTime(), key());
  }

  /**
   * This record with another definition.
   *
   * @param s the new definition
   * @return a copy with that definition
   */
  public JobRecord withSpec(JobSpec s) {
    return new JobRecord(s, schedule, stats, version);
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
    return withSchedule(new ScheduleState(newState, next, due, kind, newAttempt));
  }

  /**
   * This record with a one-off run requested ({@code triggerNow}): due at {@code at} as a trigger,
   * first attempt, the timetable's next fire kept; a RUNNING record becomes SCHEDULED, any other
   * state (PAUSED included) is kept ({@link ScheduleState#triggered}).
   *
   * @param at when the triggered run is due
   * @return a copy with the trigger
   */
  public JobRecord triggered(Instant at) {
    return withSchedule(schedule.triggered(at));
  }

  /**
   * This record with another version.
   *
   * @param v the new version
   * @return a copy with that version
   */
  public JobRecord withVersion(long v) {
    return new JobRecord(spec, schedule, stats, v);
  }

  /**
   * This record with another schedule state; statistics and version kept.
   *
   * @param s the schedule state
   * @return a copy with that schedule state
   */
  public JobRecord withSchedule(ScheduleState s) {
    return new JobRecord(spec, s, stats, version);
  }

  /**
   * This record with other run statistics; definition, schedule state and version kept.
   *
   * @param s the statistics
   * @return a copy with those statistics
   */
  public JobRecord withStats(RunStats s) {
    return new JobRecord(spec, schedule, s, version);
  }

  /**
   * Life-cycle state (see {@link ScheduleState#state()}).
   *
   * @return the state
   */
  public JobState state() {
    return schedule.state();
  }

  /**
   * Scheduled time of the next timetable fire; null when complete.
   *
   * @return the next fire, or null
   */
  public Instant nextFireTime() {
    return schedule.nextFireTime();
  }

  /**
   * When the job's next run is due; null when it must not fire.
   *
   * @return the due time, or null
   */
  public Instant dueTime() {
    return schedule.dueTime();
  }

  /**
   * Why the next run is due.
   *
   * @return the kind
   */
  public FireKind dueKind() {
    return schedule.dueKind();
  }

  /**
   * The attempt number of the next run.
   *
   * @return 1, or more for a retry
   */
  public int attempt() {
    return schedule.attempt();
  }

  /**
   * Scheduled time of the last fire that ran.
   *
   * @return the fire, or null
   */
  public Instant lastScheduledFireTime() {
    return stats.lastScheduledFireTime();
  }

  /**
   * Start of the last run.
   *
   * @return the start, or null
   */
  public Instant lastStart() {
    return stats.lastStart();
  }

  /**
   * End of the last run.
   *
   * @return the end, or null
   */
  public Instant lastEnd() {
    return stats.lastEnd();
  }

  /**
   * Outcome of the last run.
   *
   * @return the outcome, or null
   */
  public RunOutcome lastOutcome() {
    return stats.lastOutcome();
  }

  /**
   * Message of the last failure.
   *
   * @return the message, or null
   */
  public String lastError() {
    return stats.lastError();
  }

  /**
   * Runs so far.
   *
   * @return the count
   */
  public long runCount() {
    return stats.runCount();
  }

  /**
   * Failed runs so far.
   *
   * @return the count
   */
  public long failureCount() {
    return stats.failureCount();
  }

  /**
   * The public view of this record.
   *
   * @return the job info
   */
  public JobInfo toInfo() {
    return new JobInfo(
        spec,
        state(),
        nextFireTime(),
        lastScheduledFireTime(),
        lastStart(),
        lastEnd(),
        lastOutcome(),
        lastError(),
        runCount(),
        failureCount());
  }
}
