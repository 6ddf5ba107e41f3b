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
 * @param error the failure's message, trimmed; null on success
 * @param attempt 1 for the first attempt, more for retries
 * @param instance the scheduler instance that ran it
 */
public record RunRecord(
    String key,
    Instant scheduledFireTime,
    Instant start,
    Instant end,
    RunOutcome outcome,
    String error,
    int attempt,
    String instance) {}
