package dev.kairos;

import java.time.Duration;

/**
 * What to do when a run fails: nothing ({@link #none()}), or try again after a delay that doubles
 * with each attempt ({@link #backoff(int, Duration)}).
 *
 * @param maxAttempts total attempts for one fire, including the first; 1 means no retry
 * @param initialDelay delay before the first retry; each further retry waits twice as long
 */
public record Retry(int maxAttempts, Duration initialDelay) {
  private static final Retry NONE = new Retry(1, Duration.ZERO);

  /**
   * No retry: a failed fire is recorded and the job waits for its next fire.
   *
   * @return the no-retry policy
   */
  public static Retry none() {
    return NONE;
  }

  /**
   * Retries a failed fire up to {@code maxAttempts} attempts in all, waiting {@code initialDelay}
   * before the second attempt, twice that before the third, and so on. Validated when the job is
   * scheduled.
   *
   * @param maxAttempts attempts per fire in all, the first included
   * @param initialDelay the wait before the second attempt
   * @return the backoff policy
   */
  public static Retry backoff(int maxAttempts, Duration initialDelay) {
    return new Retry(maxAttempts, initialDelay);
  }

  /**
   * The delay before attempt {@code nextAttempt} (2 or more): {@code initialDelay * 2^(n-2)}.
   *
   * @param nextAttempt the attempt about to be scheduled, 2 or more
   * @return how long to wait before it
   */
  public Duration delayBefore(int nextAttempt) {
    int doublings = Math.min(Math.max(nextAttempt - 2, 0), 30);
    return initialDelay.multipliedBy(1L << doublings);
  }
}
