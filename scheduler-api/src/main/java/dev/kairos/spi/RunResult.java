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
    int nextAttempt) {}
