package dev.kairos.spring;

import dev.kairos.Scheduler;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Health of the scheduler on Spring Boot 3 (Boot 4: {@link KairosBoot4HealthIndicator}): UP while
 * the store answers and, in cluster mode, this instance's heartbeat is current; DOWN while the
 * engine retries a failing store or the heartbeat is late. Details: store, queued and running jobs,
 * workers, and in cluster mode the instance and live instances. Reads engine memory only.
 */
public class KairosHealthIndicator extends AbstractHealthIndicator {
  private final Scheduler scheduler;

  /**
   * Health of {@code scheduler}.
   *
   * @param scheduler the scheduler to report on
   */
  public KairosHealthIndicator(Scheduler scheduler) {
    super("Kairos health check failed");
    this.scheduler = scheduler;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    KairosHealth health = KairosHealth.of(scheduler.stats());
    (health.up() ? builder.up() : builder.down()).withDetails(health.details());
  }
}
