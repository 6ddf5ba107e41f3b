package dev.kairos.spring;

import dev.kairos.SchedulerStats;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The scheduler's health, free of either Spring Boot line's health API, so that the Boot 3 and Boot
 * 4 indicators report the same: DOWN while the store is retried or, in cluster mode, while this
 * instance's heartbeat is older than the lease; UP otherwise. Reads engine memory only.
 *
 * @param up whether the scheduler is healthy
 * @param details what the indicators show: store ({@code up} or {@code retrying}), queued and
 *     running jobs, workers; write-backs waiting for a retry when there are any (runs the store
 *     refused: their jobs do not fire until written; UP all the same, since a restart cannot mend
 *     what the store refuses); in cluster mode also this instance ({@code alive} or {@code
 *     heartbeat late}) and the live instances
 */
record KairosHealth(boolean up, Map<String, Object> details) {

  /** The health {@code stats} show. */
  static KairosHealth of(SchedulerStats stats) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("store", stats.storeAvailable() ? "up" : "retrying");
    details.put("queuedJobs", stats.queuedJobs());
    details.put("runningJobs", stats.runningJobs());
    details.put("workers", stats.workers());
    if (stats.writeBacksWaiting() > 0) {
      details.put("writeBacksWaiting", stats.writeBacksWaiting());
    }
    if (stats.liveInstances() > 0 || !stats.instanceAlive()) { // cluster mode
      details.put("instance", stats.instanceAlive() ? "alive" : "heartbeat late");
      details.put("liveInstances", stats.liveInstances());
    }
    return new KairosHealth(stats.storeAvailable() && stats.instanceAlive(), Map.copyOf(details));
  }
}
