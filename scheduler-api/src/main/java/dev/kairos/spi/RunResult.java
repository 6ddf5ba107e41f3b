package dev.kairos.spi;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import java.time.Instant;

/**
 * The write-back after one run: what happened, and the job's schedule state from now on.
 *
 * @param key the job
 * @param expectedVersion the version the run was taken at; the new schedule state is applied only
 *     if the stored version still equals it (a change made during the run wins)
 * @param scheduledFireTime the fire that ran
 * @param attempt its attempt number
 * @param start start of the run
 * @param end end of the run
 * @param outcome how it ended
 * @param error failure message, or null
 * @param instance id of the instance that ran it
 * @param state new state: SCHEDULED or COMPLETE
 * @param nextFireTime new next timetable fire, or null
 * @param dueTime new due time, or null
 * @param dueKind why it is due
 * @param nextAttempt attempt number of the next run
 * @param spec the definition the run was taken with, or null if unknown; a stale write-back moves a
 *     change's timetable past the fire that ran only if the definition is still this one
 * @param recovery true if the run repeated a fire whose earlier run was cut off (kept in history)
 * @param missedFires how many missed fires the run stood for, not negative (kept in history)
 */
public record RunResult(
    String key,
    long expectedVersion,
    Instant scheduledFireTime,
    int attempt,
    Instant start,
    Instant end,
    RunOutcome outcome,
    String error,
    String instance,
    JobState state,
    Instant nextFireTime,
    Instant dueTime,
    FireKind dueKind,
    int nextAttempt,
    JobSpec spec,
    boolean recovery,
    int missedFires) {

  /**
   * Refuses a negative missed-fire count, naming the job.
   *
   * @param key the job
   * @param expectedVersion the version the run was taken at; the new state applies only if the
   *     stored version still equals it
   * @param scheduledFireTime the fire that ran
   * @param attempt its attempt number, from 1
   * @param start start of the run
   * @param end end of the run
   * @param outcome how it ended
   * @param error failure message, or null
   * @param instance id of the instance that ran it
   * @param state new state: SCHEDULED or COMPLETE
   * @param nextFireTime new next timetable fire, or null
   * @param dueTime new due time, or null
   * @param dueKind why it is due
   * @param nextAttempt attempt number of the next run
   * @param spec the definition the run was taken with, or null if unknown
   * @param recovery true if the run repeated a fire whose earlier run was cut off
   * @param missedFires how many missed fires the run stood for, not negative
   * @throws IllegalArgumentException if {@code missedFires} is negative
   */
  public RunResult {
    JobRules.checkMissedFires(key, missedFires);
  }

  /**
   * A result that was no recovery and stood for no missed fire.
   *
   * @param key the job
   * @param expectedVersion the version the run was taken at; the new state applies only if the
   *     stored version still equals it
   * @param scheduledFireTime the fire that ran
   * @param attempt its attempt number, from 1
   * @param start start of the run
   * @param end end of the run
   * @param outcome how it ended
   * @param error failure message, or null
   * @param instance id of the instance that ran it
   * @param state new state: SCHEDULED or COMPLETE
   * @param nextFireTime new next timetable fire, or null
   * @param dueTime new due time, or null
   * @param dueKind why it is due
   * @param nextAttempt attempt number of the next run
   * @param spec the definition the run was taken with, or null if unknown
   */
  public RunResult(
      String key,
      long expectedVersion,
      Instant scheduledFireTime,
      int attempt,
      Instant start,
      Instant end,
      RunOutcome outcome,
      String error,
      String instance,
      JobState state,
      Instant nextFireTime,
      Instant dueTime,
      FireKind dueKind,
      int nextAttempt,
      JobSpec spec) {
    this(
        key,
        expectedVersion,
        scheduledFireTime,
        attempt,
        start,
        end,
        outcome,
        error,
        instance,
        state,
        nextFireTime,
        dueTime,
        dueKind,
        nextAttempt,
        spec,
        false,
        0);
  }

  /**
   * A result without the definition it was taken with (treated as unchanged).
   *
   * @param key the job
   * @param expectedVersion the version the run was taken at; the new state applies only if the
   *     stored version still equals it
   * @param scheduledFireTime the fire that ran
   * @param attempt its attempt number, from 1
   * @param start start of the run
   * @param end end of the run
   * @param outcome how it ended
   * @param error failure message, or null
   * @param instance id of the instance that ran it
   * @param state new state: SCHEDULED or COMPLETE
   * @param nextFireTime new next timetable fire, or null
   * @param dueTime new due time, or null
   * @param dueKind why it is due
   * @param nextAttempt attempt number of the next run
   */
  public RunResult(
      String key,
      long expectedVersion,
      Instant scheduledFireTime,
      int attempt,
      Instant start,
      Instant end,
      RunOutcome outcome,
      String error,
      String instance,
      JobState state,
      Instant nextFireTime,
      Instant dueTime,
      FireKind dueKind,
      int nextAttempt) {
    this(
        key,
        expectedVersion,
        scheduledFireTime,
        attempt,
        start,
        end,
        outcome,
        error,
        instance,
        state,
        nextFireTime,
        dueTime,
        dueKind,
        nextAttempt,
        null);
  }

  /**
   * The stored record after this write-back: the one rule every store applies, so "a change made
   * during the run wins" is decided in one place.
   *
   * <ul>
   *   <li>Statistics (last run, counts) always take this run.
   *   <li>If {@code stored} is still at {@link #expectedVersion()} (no change during the run), this
   *       result's schedule state is taken and the version incremented.
   *   <li>Otherwise the change made during the run wins, with one exception: it never re-arms the
   *       fire that ran. If the definition is the one the run was taken with and the stored next
   *       timetable fire is at or before {@link #scheduledFireTime()} (the change kept the
   *       timetable where the run found it, as {@code pause}, {@code resume} and {@code triggerNow}
   *       do), it moves to this result's next fire; a job scheduled on its timetable then becomes
   *       due at that fire (or complete if there is none), a paused job stays paused, a pending
   *       trigger keeps its due time. If that moves anything, the version is incremented, so the
   *       stored record is newer than the change's.
   *   <li>A state still {@code RUNNING} turns back to {@code SCHEDULED} unless another instance
   *       holds the claim (cluster mode).
   * </ul>
   *
   * @param stored the job as stored before the write-back
   * @param leasedToAnother true if another instance holds a claim on the job
   * @return the record to store
   */
  public JobRecord applyTo(JobRecord stored, boolean leasedToAnother) {
    JobRecord r = stored;
    boolean failed = outcome != RunOutcome.SUCCESS;
    JobRecord schedule = r.version() == expectedVersion ? null : merged(r, leasedToAnother);
    boolean current = schedule == null;
    boolean moved = !current && movedOn(r, schedule);
    JobRecord s = current ? r : schedule;
    return new JobRecord(
        r.spec(),
        current ? state : s.state(),
        current ? nextFireTime : s.nextFireTime(),
        current ? dueTime : s.dueTime(),
        current ? dueKind : s.dueKind(),
        current ? nextAttempt : s.attempt(),
        scheduledFireTime,
        start,
        end,
        outcome,
        failed ? error : null,
        r.runCount() + 1,
        r.failureCount() + (failed ? 1 : 0),
        current || moved ? r.version() + 1 : r.version());
  }

  /** True if {@code after} changes {@code before}'s schedule beyond releasing RUNNING. */
  private static boolean movedOn(JobRecord before, JobRecord after) {
    boolean released = before.state() == JobState.RUNNING && after.state() == JobState.SCHEDULED;
    return (after.state() != before.state() && !released)
        || !java.util.Objects.equals(after.nextFireTime(), before.nextFireTime())
        || !java.util.Objects.equals(after.dueTime(), before.dueTime())
        || after.dueKind() != before.dueKind()
        || after.attempt() != before.attempt();
  }

  /**
   * The schedule state of a stale write-back: the stored one, with the fire that ran never re-armed
   * and RUNNING released. Returns {@code r} itself if nothing changes.
   */
  private JobRecord merged(JobRecord r, boolean leasedToAnother) {
    JobState s = r.state() == JobState.RUNNING && !leasedToAnother ? JobState.SCHEDULED : r.state();
    Instant next = r.nextFireTime();
    Instant due = r.dueTime();
    FireKind kind = r.dueKind();
    int att = r.attempt();
    boolean stale =
        next != null
            && scheduledFireTime != null
            && !next.isAfter(scheduledFireTime)
            && !next.equals(nextFireTime)
            && !leasedToAnother
            && (spec == null || spec.equals(r.spec()));
    if (stale) {
      boolean onTimetable = kind == FireKind.TIMETABLE && s == JobState.SCHEDULED;
      next = nextFireTime;
      if (onTimetable) {
        // As if no change had happened: this result's whole schedule state (a retry included).
        s = state;
        due = dueTime;
        kind = dueKind;
        att = nextAttempt;
      } else if (next == null && s == JobState.PAUSED) {
        s = JobState.COMPLETE; // nothing left to resume
      }
    }
    if (s == r.state()
        && java.util.Objects.equals(next, r.nextFireTime())
        && java.util.Objects.equals(due, r.dueTime())
        && kind == r.dueKind()
        && att == r.attempt()) {
      return r;
    }
    return r.withSchedule(s, next, due, kind, att);
  }
}
