package dev.kairos.spring;

import dev.kairos.Scheduler;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator's {@code kairos} endpoint, when Actuator is on the classpath and a {@link Scheduler}
 * bean exists; it sits in a nested configuration conditional on the class names it needs, so a
 * classpath without them backs off instead of failing. The health indicator has an
 * auto-configuration per Spring Boot line: {@link KairosHealthAutoConfiguration} (Boot 3) and
 * {@link KairosBoot4HealthAutoConfiguration} (Boot 4).
 */
@AutoConfiguration(after = KairosAutoConfiguration.class)
@ConditionalOnBean(Scheduler.class)
public class KairosActuatorAutoConfiguration {

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

    /**
     * Refuses unknown fields in a write to the endpoint (HTTP 400 naming them).
     *
     * @return the check, applied by Actuator to the endpoint's operations
     */
    @Bean
    @ConditionalOnClass(
        name = "org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor")
    @ConditionalOnAvailableEndpoint(endpoint = KairosEndpoint.class)
    KairosEndpointRequestCheck kairosEndpointRequestCheck() {
      return new KairosEndpointRequestCheck();
    }
  }
}
