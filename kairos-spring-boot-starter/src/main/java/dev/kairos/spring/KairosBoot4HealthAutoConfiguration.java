package dev.kairos.spring;

import dev.kairos.Scheduler;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code kairos} health indicator on Spring Boot 4 ({@link KairosBoot4HealthIndicator}), when
 * Boot 4's {@code spring-boot-health} is on the classpath (Actuator brings it) and a {@link
 * Scheduler} bean exists. On Boot 3 it backs off and {@link KairosHealthAutoConfiguration} does the
 * same with Boot 3's API.
 */
@AutoConfiguration(after = KairosAutoConfiguration.class)
@ConditionalOnClass(
    name = {
      "org.springframework.boot.health.contributor.AbstractHealthIndicator",
      "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"
    })
@ConditionalOnBean(Scheduler.class)
public class KairosBoot4HealthAutoConfiguration {

  /**
   * Health: store answering or retrying, this cluster instance alive, jobs and workers.
   *
   * @param scheduler the scheduler to report on
   * @return the health indicator
   */
  @Bean
  @ConditionalOnMissingBean(name = "kairosHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("kairos")
  public KairosBoot4HealthIndicator kairosHealthIndicator(Scheduler scheduler) {
    return new KairosBoot4HealthIndicator(scheduler);
  }
}
