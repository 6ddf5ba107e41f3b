package dev.kairos.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.Scheduler;
import dev.kairos.SchedulerStats;
import dev.kairos.spring.KairosActuatorAutoConfiguration;
import dev.kairos.spring.KairosAutoConfiguration;
import dev.kairos.spring.KairosBoot4HealthAutoConfiguration;
import dev.kairos.spring.KairosBoot4HealthIndicator;
import dev.kairos.spring.KairosHealthAutoConfiguration;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter's health indicator on Spring Boot 4's health API (spring-boot-health). */
class Boot4HealthTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  KairosAutoConfiguration.class,
                  KairosActuatorAutoConfiguration.class,
                  KairosHealthAutoConfiguration.class,
                  KairosBoot4HealthAutoConfiguration.class,
                  HealthContributorAutoConfiguration.class,
                  HealthContributorRegistryAutoConfiguration.class))
          .withPropertyValues("kairos.store.type=memory");

  /** Boot 3's configuration backs off; Boot 4's registers the indicator, named {@code kairos}. */
  @Test
  void healthIndicator_registeredWithBoot4sApi_andUp() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx.getBean("kairosHealthIndicator"))
              .isInstanceOf(KairosBoot4HealthIndicator.class);
          HealthContributorRegistry registry = ctx.getBean(HealthContributorRegistry.class);
          HealthIndicator kairos = (HealthIndicator) registry.getContributor("kairos");
          Health health = kairos.health();
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails())
              .containsEntry("store", "up")
              .containsEntry("workers", 4)
              .containsKey("queuedJobs");
        });
  }

  @Test
  void healthIndicatorDisabled_noIndicator() {
    runner
        .withPropertyValues("management.health.kairos.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).doesNotHaveBean("kairosHealthIndicator");
            });
  }

  @Test
  void storeRetried_down() {
    Health health =
        new KairosBoot4HealthIndicator(reporting(new SchedulerStats(0, 0, 4, false))).health();
    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat(health.getDetails()).containsEntry("store", "retrying");
  }

  @Test
  void clusterHeartbeatLate_down_clusterAlive_up() {
    Health late =
        new KairosBoot4HealthIndicator(reporting(new SchedulerStats(0, 0, 4, true, 2, false)))
            .health();
    assertThat(late.getStatus()).isEqualTo(Status.DOWN);
    assertThat(late.getDetails()).containsEntry("instance", "heartbeat late");

    Health alive =
        new KairosBoot4HealthIndicator(reporting(new SchedulerStats(0, 0, 4, true, 3, true)))
            .health();
    assertThat(alive.getStatus()).isEqualTo(Status.UP);
    assertThat(alive.getDetails())
        .containsEntry("instance", "alive")
        .containsEntry("liveInstances", 3);
  }

  /** A scheduler that only answers {@code stats()}. */
  private static Scheduler reporting(SchedulerStats stats) {
    return (Scheduler)
        Proxy.newProxyInstance(
            Scheduler.class.getClassLoader(),
            new Class<?>[] {Scheduler.class},
            (proxy, method, args) -> {
              if (method.getName().equals("stats")) {
                return stats;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }
}
