package dev.kairos.spring;

import dev.kairos.Scheduler;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Actuator support (Spring Boot 3): the {@code kairos} health indicator and the {@code kairos}
 * endpoint, when Actuator is on the classpath and a {@link Scheduler} bean exists.
 */
@AutoConfiguration(after = KairosAutoConfiguration.class)
@ConditionalOnClass({
  HealthIndicator.class,
  ConditionalOnEnabledHealthIndicator.class,
  ConditionalOnAvailableEndpoint.class
})
@ConditionalOnBean(Scheduler.class)
public class KairosActuatorAutoConfiguration {

  /** Health: store answering or retrying, queued and running jobs. */
  @Bean
  @ConditionalOnMissingBean(name = "kairosHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("kairos")
  public KairosHealthIndicator kairosHealthIndicator(Scheduler scheduler) {
    return new KairosHealthIndicator(scheduler);
  }

  /** The {@code kairos} endpoint: jobs, pause, resume, trigger. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  public KairosEndpoint kairosEndpoint(Scheduler scheduler) {
    return new KairosEndpoint(scheduler);
  }
}
