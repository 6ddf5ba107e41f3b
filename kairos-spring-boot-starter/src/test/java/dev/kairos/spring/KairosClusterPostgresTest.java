package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.Scheduler;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Two applications with {@code kairos.cluster.enabled=true} on one PostgreSQL schema, each with its
 * own pool (the application's DataSource), as two deployed instances of one service would run: both
 * declare the same annotated job; each fire runs on one of them only, the fires go on without a
 * gap, both instances see each other, and a pause through one stops the job on both. Skipped with a
 * message when the server is unreachable, unless the environment variable CI is set: then it fails.
 */
class KairosClusterPostgresTest {
  static final String SERVER = KairosPostgresTest.SERVER;
  static final String SCHEMA =
      "kairos_springc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  static final Queue<String[]> RUNS = new ConcurrentLinkedQueue<>();
  static String unreachable;

  /** The job both applications declare: every 200 ms, recording (application, fire time). */
  static class Ticker {
    private final String app;

    Ticker(String app) {
      this.app = app;
    }

    // Every missed fire made up: two contexts and PostgreSQL on two cores can run a second behind,
    // and the default fireOnce() would fold late fires into one (a gap the test would report).
    @KairosScheduled(
        key = "tick",
        fixedRate = "200ms",
        misfire = KairosScheduled.MisfirePolicy.CATCH_UP)
    void tick(JobContext ctx) {
      RUNS.add(new String[] {app, ctx.scheduledFireTime().toString()});
    }
  }

  @Configuration
  static class TickerConfig {
    @Bean
    Ticker ticker(org.springframework.core.env.Environment env) {
      return new Ticker(env.getProperty("kairos.instance-id"));
    }
  }

  @BeforeAll
  static void createSchema() {
    unreachable = KairosPostgresTest.createSchemaOrExplain(SCHEMA);
  }

  @AfterAll
  static void dropSchema() throws SQLException {
    if (unreachable == null) {
      KairosPostgresTest.dropSchema(SCHEMA);
    }
  }

  private static ApplicationContextRunner instance(String id) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataSourceAutoConfiguration.class, KairosAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + SERVER + "?currentSchema=" + SCHEMA,
            "spring.datasource.username=postgres",
            "spring.datasource.hikari.maximum-pool-size=4",
            "kairos.instance-id=" + id,
            "kairos.cluster.enabled=true",
            "kairos.cluster.lease=3s")
        .withUserConfiguration(TickerConfig.class);
  }

  @Test
  void twoApplications_shareTheJob_eachFireOnce_andAPauseReachesBoth() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    instance("app-a")
        .run(
            a ->
                instance("app-b")
                    .run(
                        b -> {
                          Scheduler sa = a.getBean(Scheduler.class);
                          Scheduler sb = b.getBean(Scheduler.class);
                          await()
                              .atMost(Duration.ofSeconds(20))
                              .until(
                                  () ->
                                      sa.stats().liveInstances() == 2
                                          && sb.stats().liveInstances() == 2);
                          Instant from = Instant.now();
                          await().atMost(Duration.ofSeconds(20)).until(() -> RUNS.size() >= 25);

                          assertThat(sb.pause("tick")).isTrue();
                          Instant paused = Instant.now();
                          // Watch the cluster for longer than the bound (a change reaches
                          // every instance within 1 s): runs must stop, whichever ran them.
                          Thread.sleep(1500);
                          List<String[]> runs = List.copyOf(RUNS);
                          Map<String, Long> perFire =
                              runs.stream()
                                  .collect(Collectors.groupingBy(r -> r[1], Collectors.counting()));
                          assertThat(perFire.values()).as("runs per fire time").containsOnly(1L);
                          assertThat(
                                  runs.stream()
                                      .map(r -> Instant.parse(r[1]))
                                      .filter(t -> t.isAfter(paused.plusSeconds(1))))
                              .as("fires after the pause plus 1 s")
                              .isEmpty();
                          List<Instant> fires =
                              runs.stream()
                                  .map(r -> Instant.parse(r[1]))
                                  .filter(t -> t.isAfter(from))
                                  .filter(t -> t.isBefore(paused.minusMillis(400)))
                                  .sorted()
                                  .toList();
                          for (int i = 1; i < fires.size(); i++) {
                            assertThat(Duration.between(fires.get(i - 1), fires.get(i)))
                                .as("gap before the fire of %s", fires.get(i))
                                .isEqualTo(Duration.ofMillis(200));
                          }
                          System.out.println(
                              "two applications: runs per application "
                                  + runs.stream()
                                      .collect(
                                          Collectors.groupingBy(r -> r[0], Collectors.counting())));
                        }));
  }
}
