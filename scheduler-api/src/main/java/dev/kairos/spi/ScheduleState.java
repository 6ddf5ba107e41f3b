package dev.kairos.spi;

import dev.kairos.JobState;
import java.time.Instant;

/**
 * The part of a stored job the engine schedules from: its state, its next timetable fire, when it
 * is next due and why, and the attempt number of that run. A change to it increments the job's
 * version; run statistics ({@link RunStats}) do not.
 *
 * @param state life-cycle state; {@code RUNNING} is set by {@link JobStore#runStarted} and cleared
 *     by {@link JobStore#runFinished}, so a row left {@code RUNNING} after a crash marks a fire to
 *     recover
 * @param nextFireTime scheduled time of the next timetable fire; null when complete
 * @param dueTime when the job's next run is due; null when it must not fire (paused, complete).
 *     Stores index it: the engine loads jobs by (due time, key)
 * @param dueKind why the next run is due
 * @param attempt the attempt number of the next run (1, or more for a retry)
 */
public record ScheduleState(
    JobState state, Instant nextFireTime, Instant dueTime, FireKind dueKind, int attempt) {

  /**
   * The schedule state of a job never run: due at {@code first} on its timetable, first attempt.
   *
   * @param first the first fire, or null for none
   * @return SCHEDULED at {@code first}, or COMPLETE without a fire if it is null
   */
  public static ScheduleState first(Instant first) {
    return new ScheduleState(
        first == null ? JobState.COMPLETE : JobState.SCHEDULED,
        first,
        first,
        FireKind.TIMETABLE,
        1);
  }

  /**
   * This state with a one-off run requested ({@code triggerNow}): due at {@code at} as a trigger,
   * first attempt, the timetable's next fire kept; RUNNING becomes SCHEDULED, any other state
   * (PAUSED included) is kept. The one place that writes this change ({@link JobRecord#triggered}
   * applies it).
   *
   * @param at when the triggered run is due
   * @return the triggered state
   */
  public ScheduleState triggered(Instant at) {
    return new ScheduleState(
        state == JobState.RUNNING ? JobState.SCHEDULED : state,
        nextFireTime,
        at,
        FireKind.TRIGGER,
        1);
  }

  /**
   * This state with another life-cycle state, the rest kept.
   *
   * @param s the state
   * @return a copy in that state
   */
  public ScheduleState withState(JobState s) {
    return new ScheduleState(s, nextFireTime, dueTime, dueKind, attempt);
  }
}
