package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Misfire;
import dev.kairos.Retry;
import dev.kairos.Schedule;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.ManualClock;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.StoreSource;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The auto-configuration's store choices, properties, declared jobs and failures. */
class KairosAutoConfigurationTest {
  static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  @TempDir Path dir;

  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(KairosAutoConfiguration.class));

  /** Jobs declared by annotation; records each run. */
  static class Reports {
    final List<String> runs = new CopyOnWriteArrayList<>();

    @KairosScheduled(
        cron = "0 0 2 * * *",
        zone = "Europe/Berlin",
        misfire = KairosScheduled.MisfirePolicy.SKIP)
    void nightly() {
      runs.add("nightly");
    }

    @KairosScheduled(
        key = "purge",
        fixedDelay = "5m",
        initialDelay = "10s",
        retryAttempts = 3,
        retryDelay = "2s",
        data = "{\"days\": 30}")
    void purge(JobContext ctx) {
      runs.add("purge@" + ctx.scheduledFireTime());
    }
  }

  @Configuration
  static class ReportsConfig {
    @Bean
    Reports reports() {
      return new Reports();
    }
  }

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
  void memoryStore_whenAsked() {
    runner
        .withPropertyValues("kairos.store.type=memory")
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(Scheduler.class);
              assertThat(ctx.getBean(StoreSource.class)).isInstanceOf(InMemoryStore.class);
            });
  }

  @Test
  void embeddedH2_inTheConfiguredDirectory_whenNoDataSource() {
    runner
        .withPropertyValues("kairos.store.h2-directory=" + dir)
        .run(
            ctx -> {
              assertThat(ctx.getBean(StoreSource.class)).isInstanceOf(JdbcStore.class);
              assertThat(dir.resolve("kairos.mv.db")).exists();
            });
  }

  /** A JdbcStore bean of the application's is a store source, so it replaces the starter's. */
  @Test
  void applicationsJdbcStoreBean_replacesTheStartersStore() {
    JdbcStore mine = JdbcStore.builder().h2(dir).tablePrefix("mine_").build();
    runner
        .withBean("myStore", JdbcStore.class, () -> mine)
        .withUserConfiguration(ReportsConfig.class)
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(StoreSource.class);
              assertThat(ctx.getBean(StoreSource.class)).isSameAs(mine);
              assertThat(ctx.getBean(Scheduler.class).job("purge")).isPresent();
              assertThat(mine.jobStore().find("purge")).isPresent();
            });
  }

  /**
   * A {@code kairos.store.*} setting the in-memory store has no use for is logged at WARN naming
   * the property, its value and the store, and the application starts (a test choosing the memory
   * store over the application's H2 settings); the two settings it does use reach it.
   */
  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void memoryStore_warnsOfTheSettingsItDoesNotUse(CapturedOutput output) {
    for (String unused :
        new String[] {
          "kairos.store.pool-size=4",
          "kairos.store.table-prefix=app_",
          "kairos.store.create-schema=false",
          "kairos.store.history-max-age=7d",
          "kairos.store.start-mark-delay=5s"
        }) {
      runner
          .withPropertyValues("kairos.store.type=memory", unused)
          .run(
              ctx -> {
                assertThat(ctx).as(unused).hasNotFailed();
                assertThat(output)
                    .as(unused)
                    .containsPattern(
                        "WARN .*"
                            + Pattern.quote(
                                unused
                                    + " does not apply and is ignored: kairos.store.type=memory"
                                    + " keeps the jobs in this process's memory, without a"
                                    + " database; remove it, or choose kairos.store.type=h2 or"
                                    + " datasource"));
              });
    }
    runner
        .withPropertyValues(
            "kairos.store.type=memory",
            "kairos.store.keep-completed=false",
            "kairos.store.history-per-job=5")
        .withUserConfiguration(ClockConfig.class)
        .withBean("nightlyExport", ExportJob.class)
        .run(
            ctx -> {
              Scheduler s = ctx.getBean(Scheduler.class);
              s.schedule(JobSpec.named("once").handler("nightlyExport").at(T0));
              await().atMost(Duration.ofSeconds(10)).until(() -> s.job("once").isEmpty());
            });
  }

  /**
   * On the application's DataSource the embedded pool's size does nothing, and neither does a
   * directory for an H2 database that {@code auto} did not choose: each is logged at WARN; an
   * explicit {@code datasource} choice leaves a directory of a shared configuration be, unlogged.
   */
  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void dataSourceStore_warnsOfThePoolSize_andADirectoryAutoIgnored(CapturedOutput output) {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:pooled;DB_CLOSE_DELAY=-1");
    ApplicationContextRunner withDs =
        runner.withBean("dataSource", DataSource.class, () -> ds, d -> d.setDestroyMethodName(""));
    for (String type : new String[] {"auto", "datasource"}) {
      withDs
          .withPropertyValues("kairos.store.type=" + type, "kairos.store.pool-size=4")
          .run(
              ctx -> {
                assertThat(ctx).as(type).hasNotFailed();
                assertThat(output)
                    .contains(
                        "kairos.store.pool-size=4 does not apply and is ignored:"
                            + " kairos.store.type="
                            + type
                            + " stores the jobs in the application's DataSource, whose"
                            + " connections its own pool gives (spring.datasource.*); remove it,"
                            + " or set kairos.store.type=h2 for the embedded database");
              });
    }
    withDs
        .withPropertyValues("kairos.store.h2-directory=" + dir)
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(output)
                  .contains(
                      "kairos.store.h2-directory="
                          + dir
                          + " does not apply and is ignored: kairos.store.type=auto stores the"
                          + " jobs in the application's DataSource, not in an embedded H2"
                          + " database; remove it, or set kairos.store.type=h2 for the embedded"
                          + " database");
            });
    String before = output.getAll();
    withDs
        .withPropertyValues("kairos.store.type=datasource", "kairos.store.h2-directory=" + dir)
        .run(ctx -> assertThat(ctx).hasNotFailed());
    assertThat(output.getAll().substring(before.length())).doesNotContain("h2-directory");
  }

  /**
   * With a store bean of the application's, the {@code kairos.store.*} settings do nothing: each is
   * logged at WARN naming the bean. {@code kairos.cluster.enabled=true} fails the start: the
   * application would believe its instances share the fires.
   */
  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void applicationsStoreBean_warnsOfTheStoreProperties_refusesClusterMode(CapturedOutput output) {
    for (String unused : new String[] {"kairos.store.type=h2", "kairos.store.table-prefix=x_"}) {
      runner
          .withBean("myStore", InMemoryStore.class, InMemoryStore::new)
          .withPropertyValues(unused)
          .run(
              ctx -> {
                assertThat(ctx).as(unused).hasNotFailed();
                assertThat(output)
                    .contains(
                        unused
                            + " does not apply and is ignored: the application's store bean"
                            + " 'myStore' replaces the starter's store; configure that store"
                            + " itself");
              });
    }
    runner
        .withBean("myStore", InMemoryStore.class, InMemoryStore::new)
        .withPropertyValues("kairos.cluster.enabled=true")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessage(
                        "kairos.cluster.enabled=true does not apply: the application's store bean"
                            + " 'myStore' replaces the starter's store; build that store with"
                            + " clustered(true)"));
  }

  @Test
  void applicationDataSource_isUsed_andNeverClosed() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:app;DB_CLOSE_DELAY=-1");
    runner
        .withBean("dataSource", DataSource.class, () -> ds, d -> d.setDestroyMethodName(""))
        .withUserConfiguration(ReportsConfig.class)
        .run(
            ctx -> {
              assertThat(ctx.getBean(StoreSource.class)).isInstanceOf(JdbcStore.class);
              assertThat(ctx.getBean(Scheduler.class).job("purge")).isPresent();
            });
    try (var c = ds.getConnection();
        var rs = c.createStatement().executeQuery("select count(*) from kairos_jobs")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(2); // the app's database holds the jobs, still open
    }
  }

  @Test
  void dataSourceType_withoutDataSource_failsNamingTheProperty() {
    runner
        .withPropertyValues("kairos.store.type=datasource")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("kairos.store.type=datasource"));
  }

  @Test
  void properties_reachTheBuilder() {
    runner
        .withPropertyValues(
            "kairos.store.type=memory", "kairos.workers=2", "kairos.default-zone=Asia/Tokyo")
        .withUserConfiguration(ReportsConfig.class)
        .run(
            ctx -> {
              Scheduler s = ctx.getBean(Scheduler.class);
              assertThat(s.stats().workers()).isEqualTo(2);
              s.schedule(JobSpec.named("zoned").handler("purge").cron("0 0 2 * * ?"));
              Schedule.Cron cron = (Schedule.Cron) s.job("zoned").orElseThrow().spec().schedule();
              assertThat(cron.zone()).isEqualTo(ZoneId.of("Asia/Tokyo"));
            });
  }

  @Test
  void invalidBuilderSetting_failsNamingThePropertyAndValue() {
    runner
        .withPropertyValues("kairos.store.type=memory", "kairos.workers=0")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("workers must be at least 1"));
    runner
        .withPropertyValues("kairos.store.type=memory", "kairos.workers=0")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasStackTraceContaining("kairos.workers=0: workers must be at least 1"));
    runner
        .withPropertyValues("kairos.store.h2-directory=" + dir, "kairos.store.table-prefix=9bad")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasStackTraceContaining("kairos.store.table-prefix=9bad"));
  }

  /**
   * A misspelled or empty {@code kairos.*} property fails the start naming it, instead of leaving
   * the default in place unseen.
   */
  @Test
  void unknownOrEmptyProperty_failsNamingIt() {
    for (String bad :
        new String[] {"kairos.workes=8", "kairos.store.tabel-prefix=x_", "kairos.look-ahead="}) {
      runner
          .withPropertyValues("kairos.store.type=memory", bad)
          .run(
              ctx ->
                  assertThat(ctx)
                      .as(bad)
                      .getFailure()
                      .hasStackTraceContaining(bad.substring(0, bad.indexOf('='))));
    }
  }

  /**
   * {@code kairos.enabled} is read as the properties bind it: {@code no}, {@code off} and {@code 0}
   * turn the scheduler off as {@code false} does.
   */
  @Test
  void enabledFalseInAnySpelling_noScheduler() {
    for (String off : new String[] {"false", "no", "off", "0"}) {
      runner
          .withPropertyValues("kairos.store.type=memory", "kairos.enabled=" + off)
          .run(ctx -> assertThat(ctx).as(off).hasNotFailed().doesNotHaveBean(Scheduler.class));
    }
    runner
        .withPropertyValues("kairos.store.type=memory", "kairos.enabled=yes")
        .run(ctx -> assertThat(ctx).hasSingleBean(Scheduler.class));
  }

  @Test
  void clusterOnAMemoryStore_isRefused() {
    runner
        .withPropertyValues("kairos.store.type=memory", "kairos.cluster.enabled=true")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("kairos.cluster.enabled=true")
                    .hasMessageContaining("kairos.store.type=memory"));
  }

  @Test
  void unknownDefaultZone_failsNamingTheProperty() {
    runner
        .withPropertyValues("kairos.store.type=memory", "kairos.default-zone=Mars/Olympus")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasStackTraceContaining("kairos.default-zone")
                    .hasStackTraceContaining("Mars/Olympus"));
  }

  @Test
  void annotatedMethods_areUpsertedWithEveryAttribute() {
    runner
        .withPropertyValues("kairos.store.type=memory")
        .withUserConfiguration(ReportsConfig.class, ClockConfig.class)
        .run(
            ctx -> {
              Scheduler s = ctx.getBean(Scheduler.class);
              JobInfo nightly = s.job("reports.nightly").orElseThrow();
              assertThat(nightly.spec().handler()).isEqualTo("reports.nightly");
              assertThat(nightly.spec().schedule())
                  .isEqualTo(
                      new Schedule.Cron(
                          "0 0 2 * * *",
                          ZoneId.of("Europe/Berlin"),
                          CronSyntax.SPRING,
                          DstPolicy.defaults()));
              assertThat(nightly.spec().misfire()).isEqualTo(Misfire.skip());

              JobSpec purge = s.job("purge").orElseThrow().spec();
              assertThat(purge.schedule())
                  .isEqualTo(new Schedule.FixedDelay(Duration.ofMinutes(5)));
              assertThat(purge.initialDelay()).contains(Duration.ofSeconds(10));
              assertThat(purge.retry()).isEqualTo(Retry.backoff(3, Duration.ofSeconds(2)));
              assertThat(purge.data()).contains("{\"days\": 30}");
            });
  }

  @Test
  void annotatedMethod_firesOnTheInjectedClock_withItsContext() {
    runner
        .withPropertyValues("kairos.store.type=memory")
        .withUserConfiguration(ReportsConfig.class, ClockConfig.class)
        .run(
            ctx -> {
              Reports reports = ctx.getBean(Reports.class);
              ctx.getBean(ManualClock.class).advance(Duration.ofSeconds(10));
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> reports.runs.contains("purge@" + T0.plusSeconds(10)));
            });
  }

  static class ExportJob implements Job {
    final List<Instant> fires = new CopyOnWriteArrayList<>();

    @Override
    public void run(JobContext context) {
      fires.add(context.scheduledFireTime());
    }
  }

  @KairosHandler("custom-name")
  static class NamedJob implements Job {
    @Override
    public void run(JobContext context) {}
  }

  @Test
  void concurrencyLimits_fromProperties_applied_andBadOnesRefusedNamingTheProperty() {
    runner
        .withPropertyValues(
            "kairos.store.type=memory",
            "kairos.limits.nightlyExport.max-concurrent=1",
            "kairos.limits.heavy.max-concurrent=2",
            "kairos.limits.heavy.handlers=custom-name")
        .withUserConfiguration(ClockConfig.class)
        .withBean("nightlyExport", ExportJob.class)
        .withBean("named", NamedJob.class)
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(KairosProperties.class).getLimits())
                  .containsOnlyKeys("nightlyExport", "heavy");
            });
    runner
        .withPropertyValues(
            "kairos.store.type=memory", "kairos.limits.nightlyExport.max-concurrent=0")
        .withBean("nightlyExport", ExportJob.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasStackTraceContaining(
                        "kairos.limits.nightlyExport=0 run(s) of nightlyExport")
                    .hasStackTraceContaining("must allow at least 1 run, not 0"));
    runner
        .withPropertyValues("kairos.store.type=memory", "kairos.limits.nosuch.max-concurrent=2")
        .withBean("nightlyExport", ExportJob.class)
        .run(ctx -> assertThat(ctx).getFailure().hasStackTraceContaining("nosuch"));
  }

  /**
   * A limit on a handler that is not registered fails naming the {@code kairos.limits.<name>}
   * property it came from, alone or as one of a group's handlers.
   */
  @Test
  void limitOnAnUnregisteredHandler_failsNamingTheProperty() {
    runner
        .withPropertyValues("kairos.store.type=memory", "kairos.limits.nosuch.max-concurrent=2")
        .withBean("nightlyExport", ExportJob.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasStackTraceContaining(
                        "kairos.limits.nosuch: concurrency limit 'nosuch' names handler 'nosuch',"
                            + " not registered"));
    runner
        .withPropertyValues(
            "kairos.store.type=memory",
            "kairos.limits.heavy.max-concurrent=2",
            "kairos.limits.heavy.handlers=nightlyExport,ghost")
        .withBean("nightlyExport", ExportJob.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasStackTraceContaining(
                        "kairos.limits.heavy: concurrency limit 'heavy' names handler 'ghost',"
                            + " not registered"));
  }

  @Test
  void jobBeans_areHandlers_byBeanNameOrAnnotation() {
    runner
        .withPropertyValues("kairos.store.type=memory")
        .withUserConfiguration(ClockConfig.class)
        .withBean("nightlyExport", ExportJob.class)
        .withBean("named", NamedJob.class)
        .run(
            ctx -> {
              Scheduler s = ctx.getBean(Scheduler.class);
              assertThat(
                      ctx.getBean(KairosAutoConfiguration.DeclaredJobsHolder.class).handlerNames())
                  .containsExactlyInAnyOrder("nightlyExport", "custom-name");
              s.schedule(JobSpec.named("export").handler("nightlyExport").at(T0));
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> ctx.getBean(ExportJob.class).fires.contains(T0));
            });
  }

  @Test
  void storedState_isKeptAcrossARestart() {
    ApplicationContextRunner h2 =
        runner
            .withPropertyValues("kairos.store.h2-directory=" + dir)
            .withUserConfiguration(ReportsConfig.class, ClockConfig.class);
    Instant[] next = new Instant[1];
    h2.run(
        ctx -> {
          ctx.getBean(ManualClock.class).advance(Duration.ofSeconds(10));
          Scheduler s = ctx.getBean(Scheduler.class);
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> s.job("purge").orElseThrow().runCount() == 1);
          next[0] = s.job("purge").orElseThrow().nextFireTime();
        });
    h2.run(
        ctx -> {
          JobInfo purge = ctx.getBean(Scheduler.class).job("purge").orElseThrow();
          assertThat(purge.runCount()).isEqualTo(1);
          assertThat(purge.nextFireTime()).isEqualTo(next[0]);
        });
  }

  @Test
  void removedJobs_warnByDefault_pauseDeleteOrFailWhenAsked() {
    ApplicationContextRunner h2 = runner.withPropertyValues("kairos.store.h2-directory=" + dir);
    h2.withUserConfiguration(ReportsConfig.class).run(ctx -> assertThat(ctx).hasNotFailed());

    h2.run(
        ctx ->
            assertThat(ctx.getBean(Scheduler.class).job("purge").orElseThrow().state())
                .isEqualTo(JobState.SCHEDULED));
    h2.withPropertyValues("kairos.removed-jobs=fail")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("purge")
                    .hasMessageContaining("kairos.removed-jobs=fail"));
    h2.withPropertyValues("kairos.removed-jobs=pause")
        .run(
            ctx ->
                assertThat(ctx.getBean(Scheduler.class).job("purge").orElseThrow().state())
                    .isEqualTo(JobState.PAUSED));
    h2.withPropertyValues("kairos.removed-jobs=delete")
        .run(ctx -> assertThat(ctx.getBean(Scheduler.class).jobs()).isEmpty());
  }
}
