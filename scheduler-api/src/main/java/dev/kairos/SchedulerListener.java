package dev.kairos;

import java.time.Duration;
import java.time.Instant;

/**
 * Receives events of a scheduler, on the scheduler's thread that caused them: a worker (or the
 * backfill thread) for a run's events; on a database store outside cluster mode, a write-back
 * thread for {@link #runWrittenBack}; the cluster thread for {@link #changeMissed}. Implementations
 * must be quick and must not throw (a thrown exception is logged and ignored): a slow one holds up
 * that thread's work. {@link Scheduler#close()} may be called from any of them.
 */
public interface SchedulerListener {
  /**
   * A run is about to start.
   *
   * @param context the run about to start
   */
  default void runStarted(JobContext context) {}

  /**
   * A run returned normally.
   *
   * @param context the run that succeeded
   * @param took how long the run took
   */
  default void runSucceeded(JobContext context, Duration took) {}

  /**
   * A run threw; {@code willRetry} tells whether another attempt is scheduled.
   *
   * @param context the run that failed
   * @param error what the handler threw
   * @param willRetry true if another attempt of this fire is scheduled
   */
  default void runFailed(JobContext context, Throwable error, boolean willRetry) {}

  /**
   * A job was behind and its misfire policy dropped fires.
   *
   * @param key the job
   * @param oldestMissed the oldest dropped fire
   * @param dropped how many fires were dropped
   * @param policy the policy that decided
   */
  default void firesDropped(String key, Instant oldestMissed, long dropped, Misfire policy) {}

  /**
   * A run of a job was still going when later fires came due, and its overlap policy dropped some
   * of them ({@link Overlap#skip()}, {@link Overlap#bufferOne()}).
   *
   * @param key the job
   * @param oldestDropped the oldest dropped fire
   * @param dropped how many fires were dropped
   * @param policy the policy that decided
   */
  default void overlapDropped(String key, Instant oldestDropped, long dropped, Overlap policy) {}

  /**
   * A run's outcome and next fire were written back to the store, after {@link #runSucceeded} or
   * {@link #runFailed}; the job is queued again only now. Not called if the write-back was given up
   * at shutdown.
   *
   * @param context the run
   * @param took real time from the first attempt of the write-back until the store took it, retries
   *     during a store outage included (the scheduler's clock plays no part)
   */
  default void runWrittenBack(JobContext context, Duration took) {}

  /**
   * Cluster mode: another instance claimed a fire this instance had queued and was about to run, so
   * it does not run here. Normal in small numbers (instances disagreeing for a moment on who runs
   * which job); a steady rate means instances race for the same fires.
   *
   * @param key the job
   * @param scheduledFireTime the fire this instance tried to claim
   */
  default void claimLost(String key, Instant scheduledFireTime) {}

  /**
   * Cluster mode: a job nobody held had been due for some seconds, but this instance had not queued
   * it, because the change feed never delivered its last change (a store transaction that committed
   * long after writing it); the overdue sweep queued it from its row now, so its fire runs late
   * rather than never. Should be rare; a steady rate means store transactions stall for seconds.
   *
   * @param key the job
   * @param dueTime when the job became due
   */
  default void changeMissed(String key, Instant dueTime) {}
}
