package dev.kairos.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.ManualClock;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.micrometer.KairosMetrics;
import dev.kairos.spi.StoreSource;
import dev.kairos.spring.KairosActuatorAutoConfiguration;
import dev.kairos.spring.KairosAutoConfiguration;
import dev.kairos.spring.KairosCustomizer;
import dev.kairos.spring.KairosMetricsAutoConfiguration;
import dev.kairos.spring.KairosScheduled;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The starter, built against Spring Boot 3.5, on Spring Boot 4: stores, annotated jobs, metrics.
 */
class Boot4CompatibilityTest {
  static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  @TempDir Path dir;

  /** An annotated job recording its fires. */
  static class Ticks {
    final List<Instant> fires = new CopyOnWriteArrayList<>();

    @KairosScheduled(key = "tick", fixedRate = "1m", initialDelay = "5s")
    void tick(JobContext ctx) {
      fires.add(ctx.scheduledFireTime());
    }
  }

  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  KairosAutoConfiguration.class, KairosMetricsAutoConfiguration.class))
          .withUserConfiguration(ClockConfig.class)
          .withBean("ticks", Ticks.class);

  /** The scheduler runs on a manual clock. */
  @Configuration
  static class ClockConfig {
    @Bean
    ManualClock clock() {
      return new ManualClock(T0);
    }

    @Bean
    KairosCustomizer manualClock(ManualClock clock) {
      return b -> b.clock(clock);
    }
  }

  @Test
  void actuatorAutoConfiguration_backsOffWithoutBoot3Actuator_andTheContextStarts() {
    runner
        .withConfiguration(AutoConfigurations.of(KairosActuatorAutoConfiguration.class))
        .withPropertyValues("kairos.store.type=memory")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed().hasSingleBean(Scheduler.class);
              assertThat(ctx).doesNotHaveBean("kairosHealthIndicator");
            });
  }

  @Test
  void runsOnSpringBoot4() {
    assertThat(SpringBootVersion.getVersion()).startsWith("4.");
  }

  @Test
  void memoryStore_annotatedJobFires_andIsCounted() {
    runner
        .withPropertyValues("kairos.store.type=memory")
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(StoreSource.class)).isInstanceOf(InMemoryStore.class);
              Scheduler s = ctx.getBean(Scheduler.class);
              assertThat(s.job("tick")).isPresent();
              s.triggerNow("tick");
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> !ctx.getBean(Ticks.class).fires.isEmpty());
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> registry.find(KairosMetrics.RUNS_FINISHED).counter() != null);
              assertThat(registry.get(KairosMetrics.RUNS_FINISHED).counter().count()).isEqualTo(1);
            });
  }

  @Test
  void embeddedH2_keepsStateAcrossARestart() {
    ApplicationContextRunner h2 = runner.withPropertyValues("kairos.store.h2-directory=" + dir);
    Instant[] next = new Instant[1];
    h2.run(
        ctx -> {
          assertThat(ctx.getBean(StoreSource.class)).isInstanceOf(JdbcStore.class);
          next[0] = ctx.getBean(Scheduler.class).job("tick").orElseThrow().nextFireTime();
        });
    h2.run(
        ctx ->
            assertThat(ctx.getBean(Scheduler.class).job("tick").orElseThrow().nextFireTime())
                .isEqualTo(next[0]));
  }
}
