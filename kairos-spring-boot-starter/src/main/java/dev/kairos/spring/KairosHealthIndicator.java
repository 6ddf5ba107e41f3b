package dev.kairos.spring;

import dev.kairos.Scheduler;
import dev.kairos.SchedulerStats;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Health of the scheduler: UP while the store answers, DOWN while the engine retries a failing
 * store; details give queued and running jobs and workers. Reads engine memory only.
 */
public class KairosHealthIndicator extends AbstractHealthIndicator {
  private final Scheduler scheduler;

  /** Health of {@code scheduler}. */
  public KairosHealthIndicator(Scheduler scheduler) {
    super("Kairos health check failed");
    this.scheduler = scheduler;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    SchedulerStats stats = scheduler.stats();
    (stats.storeAvailable() ? builder.up() : builder.down().withDetail("store", "retrying"))
        .withDetail("queuedJobs", stats.queuedJobs())
        .withDetail("runningJobs", stats.runningJobs())
        .withDetail("workers", stats.workers());
  }
}
