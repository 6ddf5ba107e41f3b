package dev.kairos;

/**
 * A point-in-time view of a scheduler's engine, cheap to take (no store call), for gauges and
 * health checks.
 *
 * @param queuedJobs jobs waiting in the in-memory heap for their next fire
 * @param runningJobs jobs whose run is in progress; each occupies one worker
 * @param workers the size of the worker pool
 * @param storeAvailable false while the store fails and the engine retries it with backoff
 */
public record SchedulerStats(int queuedJobs, int runningJobs, int workers, boolean storeAvailable) {

  /** Workers not running a job. */
  public int idleWorkers() {
    return Math.max(0, workers - runningJobs);
  }
}
