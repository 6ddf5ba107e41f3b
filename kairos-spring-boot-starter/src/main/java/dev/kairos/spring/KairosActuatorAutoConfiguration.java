package dev.kairos.spring;

import dev.kairos.Scheduler;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support: the {@code kairos} health indicator (Spring Boot 3's health API) and the {@code
 * kairos} endpoint, when Actuator is on the classpath and a {@link Scheduler} bean exists. Each
 * part sits in its own nested configuration, conditional on the class names it needs, so a
 * classpath without them (or Spring Boot 4, whose health API moved) backs off instead of failing.
 */
@AutoConfiguration(after = KairosAutoConfiguration.class)
@ConditionalOnBean(Scheduler.class)
public class KairosActuatorAutoConfiguration {

  /** Health: store answering or retrying, queued and running jobs. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "org.springframework.boot.actuate.health.AbstractHealthIndicator",
        "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"
      })
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "kairosHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("kairos")
    KairosHealthIndicator kairosHealthIndicator(Scheduler scheduler) {
      return new KairosHealthIndicator(scheduler);
    }
  }

  /** The {@code kairos} endpoint: jobs, pause, resume, trigger. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
        "org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException",
        "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
      })
  static class Endpoint {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    KairosEndpoint kairosEndpoint(Scheduler scheduler) {
      return new KairosEndpoint(scheduler);
    }
  }
}
