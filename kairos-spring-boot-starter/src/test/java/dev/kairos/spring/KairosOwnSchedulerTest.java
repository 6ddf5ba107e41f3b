package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.micrometer.KairosMetrics;
import dev.kairos.spi.StoreSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code Scheduler} bean of the application's: it replaces the starter's, which then only starts
 * and closes it; what the starter cannot apply to it fails the start or is logged at WARN.
 */
@ExtendWith(OutputCaptureExtension.class)
class KairosOwnSchedulerTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(KairosAutoConfiguration.class));

  /** The application's store, which outlives its scheduler so a test can read it afterwards. */
  final InMemoryStore appStore = new InMemoryStore();

  /** Counted down by each run of the application's handler {@code appHandler}. */
  final CountDownLatch appRuns = new CountDownLatch(1);

  /**
   * The application's scheduler: its builder registers {@code appHandler}, and it stores {@code
   * appJob} for it (hourly, so it does not run in a test).
   */
  Scheduler appScheduler() {
    Scheduler s =
        Kairos.builder()
            .store(appStore)
            .workers(3)
            .handler("appHandler", ctx -> appRuns.countDown())
            .build();
    s.schedule(JobSpec.named("appJob").handler("appHandler").fixedDelay(Duration.ofHours(1)));
    return s;
  }

  ApplicationContextRunner withAppScheduler() {
    return runner.withBean("myScheduler", Scheduler.class, this::appScheduler);
  }

  /** The part of the captured output logged since {@code before}. */
  static String since(CapturedOutput output, int before) {
    return output.getAll().substring(before);
  }

  static int count(String text, String part) {
    Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  @Test
  void applicationsScheduler_replacesTheStarters_andTheLifecycleStartsAndClosesIt() {
    Scheduler[] mine = new Scheduler[1];
    runner
        .withBean(
            "myScheduler",
            Scheduler.class,
            () -> {
              mine[0] = appScheduler();
              mine[0].schedule(JobSpec.named("now").handler("appHandler").after(Duration.ZERO));
              return mine[0];
            })
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(Scheduler.class);
              assertThat(ctx.getBean(Scheduler.class)).isSameAs(mine[0]);
              assertThat(ctx.getBean(KairosLifecycle.class).isRunning()).isTrue();
              assertThat(appRuns.await(10, TimeUnit.SECONDS)).as("started").isTrue();
            });
    assertThatThrownBy(() -> mine[0].jobs()).isInstanceOf(IllegalStateException.class);
  }

  /** {@code start()} is idempotent: the lifecycle's second start of it is no failure. */
  @Test
  void applicationsScheduler_startedByTheApplicationAlready_startsOnce(CapturedOutput output) {
    int before = output.getAll().length();
    runner
        .withBean(
            "myScheduler",
            Scheduler.class,
            () -> {
              Scheduler s = appScheduler();
              s.start();
              s.schedule(JobSpec.named("now").handler("appHandler").after(Duration.ZERO));
              return s;
            })
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(KairosLifecycle.class).isRunning()).isTrue();
              assertThat(appRuns.await(10, TimeUnit.SECONDS)).isTrue();
            });
    assertThat(count(since(output, before), "Kairos started: instance")).isEqualTo(1);
  }

  /**
   * The starter cannot tell which stored jobs of the application's scheduler lost their handler: it
   * knows only its annotated handlers, and the scheduler API lists no handlers. So {@code pause},
   * {@code delete} and {@code fail} fail the start, and the application's jobs stay as they were.
   */
  @ParameterizedTest
  @ValueSource(strings = {"pause", "delete", "fail"})
  void removedJobsOtherThanWarn_withApplicationsScheduler_failTheStart_leavingItsJobsBe(
      String value) {
    withAppScheduler()
        .withPropertyValues("kairos.removed-jobs=" + value)
        .run(
            ctx -> {
              assertThat(appStore.find("appJob")).as("appJob still stored").isPresent();
              assertThat(appStore.find("appJob").orElseThrow().schedule().state())
                  .isEqualTo(JobState.SCHEDULED);
              assertThat(ctx)
                  .getFailure()
                  .rootCause()
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessage(
                      "kairos.removed-jobs="
                          + value
                          + " cannot be applied to the application's Scheduler bean"
                          + " 'myScheduler': the starter does not know which handlers that"
                          + " scheduler registers, so it cannot tell which stored jobs lost"
                          + " theirs; remove kairos.removed-jobs (the default, warn, leaves"
                          + " stored jobs be), or remove the bean 'myScheduler' to let the starter"
                          + " build the scheduler");
            });
  }

  @Test
  void removedJobsWarn_setOrNot_withApplicationsScheduler_logsNothingAboutHandlers(
      CapturedOutput output) {
    for (String warn : new String[] {"kairos.enabled=true", "kairos.removed-jobs=warn"}) {
      int before = output.getAll().length();
      withAppScheduler()
          .withPropertyValues(warn)
          .run(
              ctx -> {
                assertThat(ctx).as(warn).hasNotFailed();
                assertThat(ctx.getBean(Scheduler.class).job("appJob").orElseThrow().state())
                    .isEqualTo(JobState.SCHEDULED);
              });
      assertThat(since(output, before))
          .as(warn)
          .doesNotContain("no handler")
          .doesNotContain("does not apply");
    }
  }

  /** Declares a handler and a job by annotation: one method. */
  static class Cleanup {
    @KairosScheduled(fixedDelay = "5m")
    void sweep() {}
  }

  @Test
  void kairosScheduledMethod_withApplicationsScheduler_failsNamingTheMethodAndTheScheduler() {
    withAppScheduler()
        .withBean("cleanup", Cleanup.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(
                        "the application's Scheduler bean 'myScheduler' replaces the starter's,"
                            + " so these annotated handlers would be registered nowhere:"
                            + " @KairosScheduled on bean 'cleanup' method 'sweep'. The starter"
                            + " registers @KairosHandler beans and @KairosScheduled methods only"
                            + " on the scheduler it builds; register them with the builder of"
                            + " 'myScheduler' yourself (and schedule their jobs) and remove the"
                            + " annotations, or remove the bean 'myScheduler' to let the starter"
                            + " build the scheduler (KairosCustomizer beans adjust its builder)"));
  }

  @Test
  void kairosHandlerBean_withApplicationsScheduler_failsNamingTheBeanAndTheScheduler() {
    withAppScheduler()
        .withBean("named", KairosAutoConfigurationTest.NamedJob.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(
                        "the application's Scheduler bean 'myScheduler' replaces the starter's,"
                            + " so these annotated handlers would be registered nowhere:"
                            + " @KairosHandler(\"custom-name\") on bean 'named'. The starter"
                            + " registers @KairosHandler beans and @KairosScheduled methods only"
                            + " on the scheduler it builds; register them with the builder of"
                            + " 'myScheduler' yourself (and schedule their jobs) and remove the"
                            + " annotations, or remove the bean 'myScheduler' to let the starter"
                            + " build the scheduler (KairosCustomizer beans adjust its builder)"));
  }

  @Test
  void severalAnnotatedHandlers_withApplicationsScheduler_areAllNamedInOrder() {
    withAppScheduler()
        .withUserConfiguration(KairosAutoConfigurationTest.ReportsConfig.class)
        .withBean("named", KairosAutoConfigurationTest.NamedJob.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(
                        "the application's Scheduler bean 'myScheduler' replaces the starter's,"
                            + " so these annotated handlers would be registered nowhere:"
                            + " @KairosHandler(\"custom-name\") on bean 'named', @KairosScheduled"
                            + " on bean 'reports' method 'nightly', @KairosScheduled on bean"
                            + " 'reports' method 'purge'. The starter registers"));
  }

  /** The application wires its own Job beans into its own builder: a plain Job bean is no error. */
  @Configuration
  static class OwnBuilderConfig {
    @Bean
    KairosAutoConfigurationTest.ExportJob export() {
      return new KairosAutoConfigurationTest.ExportJob();
    }

    @Bean
    Scheduler myScheduler(KairosAutoConfigurationTest.ExportJob export) {
      Scheduler s = Kairos.builder().store(new InMemoryStore()).handler("export", export).build();
      s.schedule(JobSpec.named("exportNow").handler("export").after(Duration.ZERO));
      return s;
    }
  }

  @Test
  void plainJobBean_withApplicationsScheduler_isTheApplicationsToRegister() {
    runner
        .withUserConfiguration(OwnBuilderConfig.class)
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              org.awaitility.Awaitility.await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () ->
                          !ctx.getBean(KairosAutoConfigurationTest.ExportJob.class)
                              .fires
                              .isEmpty());
            });
  }

  /** One setting of each property of the scheduler or store the starter would build. */
  static final String[] WARNED = {
    "kairos.workers=2",
    "kairos.look-ahead=1m",
    "kairos.window-size=100",
    "kairos.grace-period=1s",
    "kairos.startup-timeout=5s",
    "kairos.default-zone=Europe/Berlin",
    "kairos.instance-id=node-1",
    "kairos.cluster.lease=1m",
    "kairos.cluster.poll=1s",
    "kairos.cluster.enabled=false",
    "kairos.store.type=h2",
    "kairos.store.h2-directory=data",
    "kairos.store.pool-size=4",
    "kairos.store.table-prefix=app_",
    "kairos.store.create-schema=false",
    "kairos.store.keep-completed=false",
    "kairos.store.history-per-job=5",
    "kairos.store.history-max-age=7d",
    "kairos.store.start-mark-delay=5s"
  };

  static String[] warned() {
    return WARNED;
  }

  /**
   * Each {@code kairos.*} property that configures the scheduler or store the starter would build
   * is logged once at WARN, naming it, its value and the bean; the application starts.
   */
  @ParameterizedTest
  @MethodSource("warned")
  void schedulerProperty_withApplicationsScheduler_isWarnedOfOnce(
      String property, CapturedOutput output) {
    int before = output.getAll().length();
    withAppScheduler().withPropertyValues(property).run(ctx -> assertThat(ctx).hasNotFailed());
    String logged = since(output, before);
    String warning =
        property
            + " does not apply and is ignored: the application's Scheduler bean 'myScheduler'"
            + " replaces the starter's scheduler and store; configure that bean itself";
    assertThat(logged).containsPattern("WARN .*" + Pattern.quote(warning));
    assertThat(count(logged, warning)).isEqualTo(1);
  }

  @Test
  void listenerAndCustomizerBeans_withApplicationsScheduler_areWarnedOfByName(
      CapturedOutput output) {
    int before = output.getAll().length();
    withAppScheduler()
        .withBean("auditListener", SchedulerListener.class, () -> new SchedulerListener() {})
        .withBean("tuning", KairosCustomizer.class, () -> b -> b.workers(9))
        .run(ctx -> assertThat(ctx).hasNotFailed());
    String logged = since(output, before);

    assertThat(logged)
        .containsPattern(
            "WARN .*SchedulerListener bean 'auditListener' is not registered: the application's"
                + " Scheduler bean 'myScheduler' replaces")
        .containsPattern(
            "WARN .*KairosCustomizer bean 'tuning' is not applied: the application's Scheduler"
                + " bean 'myScheduler' replaces");
    assertThat(count(logged, "'auditListener' is not registered")).isEqualTo(1);
  }

  @Test
  void listenerBeans_withTheStartersScheduler_areRegisteredUnwarned(CapturedOutput output) {
    int before = output.getAll().length();
    runner
        .withPropertyValues("kairos.store.type=memory")
        .withBean("auditListener", SchedulerListener.class, () -> new SchedulerListener() {})
        .run(ctx -> assertThat(ctx).hasNotFailed());

    assertThat(since(output, before)).doesNotContain("is not registered");
  }

  @Test
  void concurrencyLimits_withApplicationsScheduler_areWarnedOfOnceEach(CapturedOutput output) {
    int before = output.getAll().length();
    withAppScheduler()
        .withPropertyValues(
            "kairos.limits.appHandler.max-concurrent=1",
            "kairos.limits.heavy.max-concurrent=2",
            "kairos.limits.heavy.handlers=a,b")
        .run(ctx -> assertThat(ctx).hasNotFailed());
    String logged = since(output, before);
    String why =
        " does not apply and is ignored: the application's Scheduler bean 'myScheduler'"
            + " replaces the starter's scheduler and store; configure that bean itself";
    assertThat(count(logged, "kairos.limits.appHandler=1 run(s) of appHandler" + why)).isEqualTo(1);
    assertThat(count(logged, "kairos.limits.heavy=2 run(s) of a, b" + why)).isEqualTo(1);
  }

  /**
   * Like a store bean of the application's: the application would believe its instances share the
   * fires, so {@code kairos.cluster.enabled=true} fails the start rather than warn.
   */
  @Test
  void clusterEnabled_withApplicationsScheduler_failsTheStart() {
    withAppScheduler()
        .withPropertyValues("kairos.cluster.enabled=true")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(
                        "kairos.cluster.enabled=true does not apply: the application's Scheduler"
                            + " bean 'myScheduler' replaces the starter's scheduler and store;"
                            + " build that scheduler's store with clustered(true)"));
  }

  /** The properties that still apply with the application's scheduler. */
  static final java.util.List<String> STILL_APPLY =
      java.util.List.of(
          "kairos.enabled",
          "kairos.removed-jobs",
          "kairos.metrics.enabled",
          "kairos.metrics.key-tags");

  /** The properties the starter still applies, and {@code kairos.enabled}, are not warned of. */
  @Test
  void propertiesStillInUse_withApplicationsScheduler_areNotWarnedOf(CapturedOutput output) {
    int before = output.getAll().length();
    withAppScheduler()
        .withPropertyValues(
            "kairos.enabled=true",
            "kairos.removed-jobs=warn",
            "kairos.metrics.enabled=true",
            "kairos.metrics.key-tags=false")
        .run(ctx -> assertThat(ctx).hasNotFailed());
    for (String name : STILL_APPLY) {
      assertThat(since(output, before)).doesNotContain(name);
    }
    assertThat(since(output, before)).doesNotContain("does not apply");
  }

  /**
   * The starter's store would be opened by nobody: it backs off, and with it its checks (a {@code
   * datasource} store without a DataSource no longer fails the start) and its log line.
   */
  @Test
  void startersStore_backsOff_withApplicationsScheduler(CapturedOutput output) {
    int before = output.getAll().length();
    withAppScheduler()
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).doesNotHaveBean(StoreSource.class);
            });
    assertThat(since(output, before)).doesNotContain("Kairos store:");
    withAppScheduler()
        .withPropertyValues("kairos.store.type=datasource")
        .run(ctx -> assertThat(ctx).hasNotFailed());
  }

  /** Endpoint, health and metrics take the scheduler bean, whichever it is. */
  @Test
  void actuatorHealthAndMetrics_workOnTheApplicationsScheduler() {
    withAppScheduler()
        .withConfiguration(
            AutoConfigurations.of(
                KairosMetricsAutoConfiguration.class,
                KairosActuatorAutoConfiguration.class,
                KairosHealthAutoConfiguration.class,
                KairosBoot4HealthAutoConfiguration.class))
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("management.endpoints.web.exposure.include=kairos")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(KairosEndpoint.class).job("appJob").key()).isEqualTo("appJob");
              var health = ctx.getBean("kairosHealthIndicator", HealthIndicator.class).health();
              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails()).containsEntry("workers", 3);
              assertThat(
                      ctx.getBean(MeterRegistry.class).get(KairosMetrics.WORKERS).gauge().value())
                  .isEqualTo(3);
            });
  }

  /**
   * Every {@code kairos.*} property in the configuration metadata is either warned of above, still
   * applies with the application's scheduler (checked not to be warned of), or is a concurrency
   * limit: a property added later must be sorted into one of them.
   */
  @Test
  void everyKairosProperty_isWarnedOf_orStillApplies() throws Exception {
    String json;
    try (java.io.InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      json = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    String properties = json.substring(json.indexOf("\"properties\""), json.indexOf("\"hints\""));
    java.util.Set<String> names = new java.util.TreeSet<>();
    Matcher m = Pattern.compile("\"name\"\\s*:\\s*\"(kairos\\.[^\"]+)\"").matcher(properties);
    while (m.find()) {
      names.add(m.group(1));
    }
    java.util.Set<String> sorted = new java.util.TreeSet<>(STILL_APPLY);
    sorted.add("kairos.limits");
    for (String warned : WARNED) {
      sorted.add(warned.substring(0, warned.indexOf('=')));
    }
    assertThat(names).isEqualTo(sorted);
  }
}
