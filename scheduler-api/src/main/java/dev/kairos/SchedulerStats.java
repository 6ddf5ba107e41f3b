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
 * @param writeBacksWaiting runs whose write-back the store failed and that wait for a retry of
 *     their own; each one's job does not fire again until it is written. Above 0 while the store is
 *     up, the store refuses those runs (see the log's WARN naming each job); 0 for a store that
 *     does not batch runs, whose workers retry their own
 */
public record SchedulerStats(
    int queuedJobs,
    int runningJobs,
    int workers,
    boolean storeAvailable,
    int liveInstances,
    boolean instanceAlive,
    int writeBacksWaiting) {

  /**
   * The view with no write-back waiting for a retry.
   *
   * @param queuedJobs jobs waiting in the in-memory heap for their next fire
   * @param runningJobs jobs whose run is in progress
   * @param workers the size of the worker pool
   * @param storeAvailable false while the store fails and the engine retries it
   * @param liveInstances cluster mode: the instances whose heartbeat is current; 0 outside it
   * @param instanceAlive cluster mode: false when this instance's heartbeat is late
   */
  public SchedulerStats(
      int queuedJobs,
      int runningJobs,
      int workers,
      boolean storeAvailable,
      int liveInstances,
      boolean instanceAlive) {
    this(queuedJobs, runningJobs, workers, storeAvailable, liveInstances, instanceAlive, 0);
  }

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
