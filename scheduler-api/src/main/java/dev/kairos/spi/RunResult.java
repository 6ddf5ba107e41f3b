package dev.kairos.spi;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import java.time.Instant;

/**
 * The write-back after one run, in named parts: what happened (the history row) and the job's
 * schedule state from now on.
 *
 * @param run the run as history keeps it: job, fire, attempt, start, end, outcome, error, instance,
 *     recovery flag, missed fires
 * @param expectedVersion the version the run was taken at; the new schedule state is applied only
 *     if the stored version still equals it (a change made during the run wins)
 * @param next the job's schedule state from now on: SCHEDULED or COMPLETE, next fire, due time and
 *     kind, attempt of the next run
 * @param spec the definition the run was taken with, or null if unknown; a stale write-back moves a
 *     change's timetable past the fire that ran only if the definition is still this one
 */
public record RunResult(RunRecord run, long expectedVersion, ScheduleState next, JobSpec spec) {

  /**
   * Checks that the run and the schedule state are present and the missed-fire count is not
   * negative.
   *
   * @param run the run as history keeps it: job, fire, attempt, start, end, outcome, error,
   *     instance, recovery flag, missed fires
   * @param expectedVersion the version the run was taken at; the new schedule state is applied only
   *     if the stored version still equals it (a change made during the run wins)
   * @param next the job's schedule state from now on: SCHEDULED or COMPLETE, next fire, due time
   *     and kind, attempt of the next run
   * @param spec the definition the run was taken with, or null if unknown; a stale write-back moves
   *     a change's timetable past the fire that ran only if the definition is still this one
   * @throws NullPointerException naming a missing part
   * @throws IllegalArgumentException if the run's missed-fire count is negative, naming the job
   */
  public RunResult {
    java.util.Objects.requireNonNull(run, "run");
    java.util.Objects.requireNonNull(next, "next");
    JobRules.checkMissedFires(run.key(), run.missedFires());
  }

  /**
   * A result without the definition it was taken with (treated as unchanged).
   *
   * @param run the run as history keeps it
   * @param expectedVersion the version the run was taken at
   * @param next the job's schedule state from now on
   */
  public RunResult(RunRecord run, long expectedVersion, ScheduleState next) {
    this(run, expectedVersion, next, null);
  }

  /**
   * The job.
   *
   * @return its key
   */
  public String key() {
    return run.key();
  }

  /**
   * The fire that ran.
   *
   * @return its scheduled time
   */
  public Instant scheduledFireTime() {
    return run.scheduledFireTime();
  }

  /**
   * The attempt number of the run.
   *
   * @return from 1
   */
  public int attempt() {
    return run.attempt();
  }

  /**
   * Start of the run.
   *
   * @return the start
   */
  public Instant start() {
    return run.start();
  }

  /**
   * End of the run.
   *
   * @return the end
   */
  public Instant end() {
    return run.end();
  }

  /**
   * How the run ended.
   *
   * @return the outcome
   */
  public RunOutcome outcome() {
    return run.outcome();
  }

  /**
   * The failure message.
   *
   * @return the message, or null
   */
  public String error() {
    return run.error();
  }

  /**
   * The instance that ran it.
   *
   * @return its id
   */
  public String instance() {
    return run.instance();
  }

  /**
   * Whether the run repeated a fire whose earlier run was cut off.
   *
   * @return the recovery flag
   */
  public boolean recovery() {
    return run.recovery();
  }

  /**
   * How many missed fires the run stood for.
   *
   * @return not negative
   */
  public int missedFires() {
    return run.missedFires();
  }

  /**
   * The new state: SCHEDULED or COMPLETE.
   *
   * @return the state
   */
  public JobState state() {
    return next.state();
  }

  /**
   * The new next timetable fire.
   *
   * @return the fire, or null
   */
  public Instant nextFireTime() {
    return next.nextFireTime();
  }

  /**
   * The new due time.
   *
   * @return the due time, or null
   */
  public Instant dueTime() {
    return next.dueTime();
  }

  /**
   * Why the job is next due.
   *
   * @return the kind
   */
  public FireKind dueKind() {
    return next.dueKind();
  }

  /**
   * The attempt number of the next run.
   *
   * @return from 1
   */
  public int nextAttempt() {
    return next.attempt();
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
   *       trigger keeps its due time. The version is incremented, so the stored record is newer
   *       than the change's and a write made against the change's version (a compare-and-set, a
   *       start mark) cannot land over this write-back; only the stale write-back of a run whose
   *       claim another instance now holds keeps the version unless it moves something.
   *   <li>A state still {@code RUNNING} turns back to {@code SCHEDULED} unless another instance
   *       holds the claim (cluster mode).
   * </ul>
   *
   * @param stored the job as stored before the write-back
   * @param leasedToAnother true if another instance holds a claim on the job
   * @return the record to store
   */
  public JobRecord applyTo(JobRecord stored, boolean leasedToAnother) {
    JobRecord merged = stored.version() == expectedVersion ? null : merged(stored, leasedToAnother);
    boolean current = merged == null;
    boolean moved = !current && movedOn(stored, merged);
    return new JobRecord(
        stored.spec(),
        current ? next : merged.schedule(),
        stored.stats().ended(scheduledFireTime(), start(), end(), outcome(), error()),
        current || moved || !leasedToAnother ? stored.version() + 1 : stored.version());
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
    Instant fired = scheduledFireTime();
    boolean stale =
        next != null
            && fired != null
            && !next.isAfter(fired)
            && !next.equals(nextFireTime())
            && !leasedToAnother
            && (spec == null || spec.equals(r.spec()));
    if (stale) {
      boolean onTimetable = kind == FireKind.TIMETABLE && s == JobState.SCHEDULED;
      next = nextFireTime();
      if (onTimetable) {
        // As if no change had happened: this result's whole schedule state (a retry included).
        s = state();
        due = dueTime();
        kind = dueKind();
        att = nextAttempt();
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
