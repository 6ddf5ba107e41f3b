package dev.kairos;

import java.time.Duration;
import java.time.Instant;

/**
 * Receives events of a scheduler, on the worker thread that caused them. Implementations must be
 * quick and must not throw (a thrown exception is logged and ignored).
 */
public interface SchedulerListener {
  /** A run is about to start. */
  default void runStarted(JobContext context) {}

  /** A run returned normally. */
  default void runSucceeded(JobContext context, Duration took) {}

  /** A run threw; {@code willRetry} tells whether another attempt is scheduled. */
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
}
