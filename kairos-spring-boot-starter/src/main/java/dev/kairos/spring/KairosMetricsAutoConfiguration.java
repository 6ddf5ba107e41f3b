package dev.kairos.spring;

import dev.kairos.Scheduler;
import dev.kairos.micrometer.KairosMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Records Kairos meters ({@link KairosMetrics}) in the application's {@link MeterRegistry} when
 * Micrometer and kairos-micrometer are on the classpath; {@code kairos.metrics.enabled=false} turns
 * it off, {@code kairos.metrics.key-tags=false} drops the job key tag.
 */
@AutoConfiguration(
    before = KairosAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({MeterRegistry.class, KairosMetrics.class})
@EnableConfigurationProperties(KairosProperties.class)
@ConditionalOnBean(MeterRegistry.class)
@Conditional(OnEnabled.Metrics.class)
public class KairosMetricsAutoConfiguration {

  /**
   * The listener recording run meters; the scheduler picks it up as a listener bean.
   *
   * @param registry the application's meter registry
   * @param properties the {@code kairos.metrics.*} settings
   * @return the metrics listener
   */
  @Bean
  @ConditionalOnMissingBean
  public KairosMetrics kairosMetrics(MeterRegistry registry, KairosProperties properties) {
    return KairosMetrics.builder(registry).keyTags(properties.getMetrics().isKeyTags()).build();
  }

  /**
   * Registers the gauges over the scheduler once all singletons exist.
   *
   * @param metrics the metrics listener
   * @param scheduler the scheduler whose stats the gauges read
   * @return the bean that registers the gauges
   */
  @Bean
  public SmartInitializingSingleton kairosMetricsGauges(
      KairosMetrics metrics, ObjectProvider<Scheduler> scheduler) {
    return () -> scheduler.ifUnique(metrics::bindTo);
  }
}
