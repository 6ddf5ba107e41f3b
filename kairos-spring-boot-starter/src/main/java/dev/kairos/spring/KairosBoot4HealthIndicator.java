package dev.kairos.spring;

import dev.kairos.Scheduler;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the scheduler on Spring Boot 4, whose health API lives in {@code spring-boot-health}
 * ({@code org.springframework.boot.health.contributor}); reports exactly what {@link
 * KairosHealthIndicator} reports on Boot 3.
 */
public class KairosBoot4HealthIndicator extends AbstractHealthIndicator {
  private final Scheduler scheduler;

  /**
   * Health of {@code scheduler}.
   *
   * @param scheduler the scheduler to report on
   */
  public KairosBoot4HealthIndicator(Scheduler scheduler) {
    super("Kairos health check failed");
    this.scheduler = scheduler;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    KairosHealth health = KairosHealth.of(scheduler.stats());
    (health.up() ? builder.up() : builder.down()).withDetails(health.details());
  }
}
