package dev.kairos.engine.internal;

import dev.kairos.Job;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.CallerTransactions;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.JobStore;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;

/**
 * The validated, immutable configuration the builder hands to the scheduler.
 *
 * @param store where jobs live
 * @param handlers registered handlers by name
 * @param workers number of worker threads
 * @param time the time source
 * @param threadFactory makes the worker threads
 * @param lookAhead how far ahead of now the heap holds jobs
 * @param windowSize most jobs read from the store per window load
 * @param gracePeriod how long {@code close()} waits for running jobs before interrupting them
 * @param listeners event listeners
 * @param defaultZone zone of cron jobs that name none
 * @param instanceId this scheduler instance's id, recorded with each run
 * @param cluster lease and change-feed settings, used when the store is in cluster mode
 * @param startupTimeout how long opening the store is retried before {@code start()} fails
 * @param callerTransactions whether a change is committed later by a caller's transaction
 * @param limits the concurrency limits, checked by the builder (no handler in two)
 * @param resampleClock asks a clock that follows the store's to sample it again at once, on the
 *     calling thread (a claim the store refused as early showed the two disagree); a no-op for
 *     other clocks
 */
public record EngineConfig(
    JobStore store,
    Map<String, Job> handlers,
    int workers,
    TimeSource time,
    ThreadFactory threadFactory,
    Duration lookAhead,
    int windowSize,
    Duration gracePeriod,
    List<SchedulerListener> listeners,
    ZoneId defaultZone,
    String instanceId,
    ClusterSettings cluster,
    Duration startupTimeout,
    CallerTransactions callerTransactions,
    List<dev.kairos.ConcurrencyLimit> limits,
    Runnable resampleClock) {

  /**
   * Cluster-mode settings.
   *
   * @param lease how long a claimed fire holds without renewal (store clock); renewed every third
   * @param poll longest wait between two reads of the change feed
   */
  public record ClusterSettings(java.time.Duration lease, java.time.Duration poll) {}
}
