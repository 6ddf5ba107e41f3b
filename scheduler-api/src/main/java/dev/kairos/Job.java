package dev.kairos;

/**
 * The code a job runs. Registered under a handler name with the scheduler builder; a {@link
 * JobSpec} refers to it by that name, so stored jobs survive restarts without storing code.
 *
 * <p>A job may throw: the failure is logged with the job key and scheduled fire time, recorded on
 * the job, reported to listeners, and the schedule goes on (optionally retried, see {@link Retry}).
 */
@FunctionalInterface
public interface Job {
  /**
   * Runs one fire of the job.
   *
   * @param context what this run is: key, data, scheduled fire time, attempt
   * @throws Exception any failure; it is recorded, never propagated to the scheduler's threads
   */
  void run(JobContext context) throws Exception;
}
