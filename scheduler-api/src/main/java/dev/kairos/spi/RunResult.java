package dev.kairos.spi;

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
    int nextAttempt) {

  /**
   * The stored record after this write-back, the rule every store applies: statistics always; this
   * result's schedule state and a new version if {@code stored} is still at {@link
   * #expectedVersion()}; else the stored schedule state (a change made during the run wins), with
   * RUNNING turned back to SCHEDULED unless another instance holds the claim (cluster mode). A
   * trigger set meanwhile keeps its due time, but the next timetable fire is this result's, so the
   * fire that ran does not run again after the trigger.
   *
   * @param stored the job as stored before the write-back
   * @param leasedToAnother true if another instance holds a claim on the job
   */
  public JobRecord applyTo(JobRecord stored, boolean leasedToAnother) {
    JobRecord r = stored;
    boolean failed = outcome != RunOutcome.SUCCESS;
    boolean current = r.version() == expectedVersion;
    JobState newState =
        current
            ? state
            : r.state() == JobState.RUNNING && !leasedToAnother ? JobState.SCHEDULED : r.state();
    return new JobRecord(
        r.spec(),
        newState,
        current || r.dueKind() == FireKind.TRIGGER ? nextFireTime : r.nextFireTime(),
        current ? dueTime : r.dueTime(),
        current ? dueKind : r.dueKind(),
        current ? nextAttempt : r.attempt(),
        scheduledFireTime,
        start,
        end,
        outcome,
        failed ? error : null,
        r.runCount() + 1,
        r.failureCount() + (failed ? 1 : 0),
        current ? r.version() + 1 : r.version());
  }
}
