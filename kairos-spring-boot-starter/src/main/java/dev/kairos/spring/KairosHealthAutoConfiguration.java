package dev.kairos.spring;

import dev.kairos.Scheduler;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code kairos} health indicator on Spring Boot 3 ({@link KairosHealthIndicator}), when Boot
 * 3's health API is on the classpath and a {@link Scheduler} bean exists. On Boot 4, whose health
 * API moved, it backs off and {@link KairosBoot4HealthAutoConfiguration} registers the indicator.
 * {@code management.health.kairos.enabled=false} turns it off on either line.
 */
@AutoConfiguration(after = KairosAutoConfiguration.class)
@ConditionalOnClass(
    name = {
      "org.springframework.boot.actuate.health.AbstractHealthIndicator",
      "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"
    })
@ConditionalOnBean(Scheduler.class)
public class KairosHealthAutoConfiguration {

  /**
   * Health: store answering or retrying, this cluster instance alive, jobs and workers.
   *
   * @param scheduler the scheduler to report on
   * @return the health indicator
   */
  @Bean
  @ConditionalOnMissingBean(name = "kairosHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("kairos")
  public KairosHealthIndicator kairosHealthIndicator(Scheduler scheduler) {
    return new KairosHealthIndicator(scheduler);
  }
}
