package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kairos.engine.ManualClock;
import dev.kairos.micrometer.KairosMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Metrics wired to the application's registry; the health indicator and endpoint beans. */
class KairosActuatorTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  KairosAutoConfiguration.class,
                  KairosMetricsAutoConfiguration.class,
                  KairosActuatorAutoConfiguration.class,
                  KairosHealthAutoConfiguration.class,
                  KairosBoot4HealthAutoConfiguration.class))
          .withPropertyValues("kairos.store.type=memory")
          .withUserConfiguration(
              KairosAutoConfigurationTest.ReportsConfig.class,
              KairosAutoConfigurationTest.ClockConfig.class);

  @Test
  void meterRegistryPresent_runsAreCountedAndLatenessRecorded() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            ctx -> {
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              ManualClock clock = ctx.getBean(ManualClock.class);
              clock.advance(Duration.ofSeconds(12)); // purge was due at +10 s: 2 s late
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () ->
                          registry.find(KairosMetrics.RUNS_FINISHED).tags("key", "purge").counter()
                              != null);
              assertThat(
                      registry
                          .get(KairosMetrics.RUNS_FINISHED)
                          .tags("key", "purge", "outcome", "success")
                          .counter()
                          .count())
                  .isEqualTo(1);
              var lateness = registry.get(KairosMetrics.FIRE_LATENESS).tags("key", "purge").timer();
              assertThat(lateness.count()).isEqualTo(1);
              assertThat(lateness.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(2000);
              assertThat(registry.get(KairosMetrics.WORKERS).gauge().value()).isEqualTo(4);
            });
  }

  @Test
  void keyTagsOff_byProperty() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("kairos.metrics.key-tags=false")
        .run(
            ctx -> {
              ctx.getBean(ManualClock.class).advance(Duration.ofSeconds(10));
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> registry.find(KairosMetrics.RUNS_STARTED).counter() != null);
              assertThat(registry.get(KairosMetrics.RUNS_STARTED).counter().getId().getTag("key"))
                  .isNull();
            });
  }

  @Test
  void noMeterRegistry_noMetricsBean() {
    runner.run(ctx -> assertThat(ctx).doesNotHaveBean(KairosMetrics.class));
  }

  @Test
  void endpointNotExposed_noEndpointBean() {
    runner.run(ctx -> assertThat(ctx).doesNotHaveBean(KairosEndpoint.class));
  }

  @Test
  void healthIndicator_isUpWithDetails() {
    runner.run(
        ctx -> {
          var health = ctx.getBean("kairosHealthIndicator", HealthIndicator.class).health();
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails()).containsEntry("workers", 4).containsKey("queuedJobs");
        });
  }

  /** On Boot 3 the Boot 3 indicator is registered; the Boot 4 configuration backs off. */
  @Test
  void healthIndicator_isBoot3s() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx.getBean("kairosHealthIndicator"))
              .isInstanceOf(KairosHealthIndicator.class);
        });
  }

  @Test
  void healthIndicatorDisabled_noIndicator() {
    runner
        .withPropertyValues("management.health.kairos.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean("kairosHealthIndicator"));
  }

  @Test
  void endpoint_listsAndActsOnJobs() {
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=kairos")
        .run(
            ctx -> {
              KairosEndpoint endpoint = ctx.getBean(KairosEndpoint.class);
              assertThat(endpoint.jobs())
                  .extracting(KairosEndpoint.JobView::key)
                  .containsExactly("purge", "reports.nightly");
              assertThat(endpoint.act("purge", "pause")).containsEntry("done", true);
              assertThat(endpoint.job("purge").paused()).isTrue();
              assertThat(endpoint.act("purge", "resume")).containsEntry("done", true);
              assertThat(endpoint.job("purge").paused()).isFalse();
              assertThat(endpoint.act("nope", "trigger")).containsEntry("done", false);
              assertThat(endpoint.job("nope")).isNull();
              assertThatThrownBy(() -> endpoint.act("purge", "explode"))
                  .hasMessageContaining("action 'explode': expected pause, resume or trigger");
            });
  }
}
