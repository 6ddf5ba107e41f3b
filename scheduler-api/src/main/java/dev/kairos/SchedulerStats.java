package dev.kairos;

/**
 * A point-in-time view of a scheduler's engine, cheap to take (no store call), for gauges and
 * health checks.
 *
 * @param queuedJobs jobs waiting in the in-memory heap for their next fire
 * @param runningJobs jobs whose run is in progress; each occupies one worker
 * @param workers the size of the worker pool
 * @param storeAvailable false while the store fails and the engine retries it with backoff
 * @param liveInstances cluster mode: the instances (this one included) whose heartbeat the store
 *     held within the lease at this instance's last heartbeat; 0 outside cluster mode and before
 *     the first heartbeat of a started scheduler
 * @param instanceAlive cluster mode: false when this instance's last successful heartbeat is older
 *     than the lease (the others may then take over its running fires); always true outside cluster
 *     mode
 */
public record SchedulerStats(
    int queuedJobs,
    int runningJobs,
    int workers,
    boolean storeAvailable,
    int liveInstances,
    boolean instanceAlive) {

  /**
   * The view of a scheduler outside cluster mode: no live instances counted, alive.
   *
   * @param queuedJobs jobs waiting in the in-memory heap for their next fire
   * @param runningJobs jobs whose run is in progress
   * @param workers the size of the worker pool
   * @param storeAvailable false while the store fails and the engine retries it
   */
  public SchedulerStats(int queuedJobs, int runningJobs, int workers, boolean storeAvailable) {
    this(queuedJobs, runningJobs, workers, storeAvailable, 0, true);
  }

  /**
   * Workers not running a job.
   *
   * @return {@code workers - runningJobs}, not below 0
   */
  public int idleWorkers() {
    return Math.max(0, workers - runningJobs);
  }
}
