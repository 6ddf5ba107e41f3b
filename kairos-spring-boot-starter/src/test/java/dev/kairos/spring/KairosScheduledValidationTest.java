package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.Scheduler;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A bad declaration fails the application start with the bean, method and value. */
class KairosScheduledValidationTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(KairosAutoConfiguration.class))
          .withPropertyValues("kairos.store.type=memory");

  static class BadCron {
    @KairosScheduled(cron = "0 0 25 * * *")
    void report() {}
  }

  static class BadZone {
    @KairosScheduled(cron = "0 0 2 * * *", zone = "Europe/Atlantis")
    void report() {}
  }

  static class TwoSchedules {
    @KairosScheduled(cron = "0 0 2 * * *", fixedRate = "1m")
    void report() {}
  }

  static class BlankKey {
    @KairosScheduled(key = "   ", fixedRate = "1m")
    void report() {}
  }

  static class NegativeCatchUpMax {
    @KairosScheduled(
        fixedRate = "1m",
        misfire = KairosScheduled.MisfirePolicy.CATCH_UP,
        catchUpMax = -5)
    void report() {}
  }

  @KairosHandler("reports")
  static class HandlerThatIsNoJob {
    void run() {}
  }

  static class BadDuration {
    @KairosScheduled(fixedRate = "often")
    void report() {}
  }

  static class BadParameter {
    @KairosScheduled(fixedRate = "1m")
    void report(String what) {}
  }

  static class SameKeyA {
    @KairosScheduled(key = "report", fixedRate = "1m")
    void a() {}
  }

  static class SameKeyB {
    @KairosScheduled(key = "report", fixedRate = "2m")
    void b() {}
  }

  static class PlaceholderJob {
    @KairosScheduled(key = "${app.job-key}", fixedRate = "${app.rate}")
    void run() {}
  }

  static class MissingPlaceholder {
    @KairosScheduled(fixedRate = "${app.undefined}")
    void run() {}
  }

  static class WindowAndJitter {
    @KairosScheduled(
        key = "sync",
        fixedRate = "1h",
        misfire = KairosScheduled.MisfirePolicy.CATCH_UP,
        catchUpWindow = "6h",
        jitter = "10m")
    void run() {}
  }

  static class WindowWithoutCatchUp {
    @KairosScheduled(
        fixedRate = "1h",
        misfire = KairosScheduled.MisfirePolicy.SKIP,
        catchUpWindow = "6h")
    void run() {}
  }

  static class JitterOfAPeriod {
    @KairosScheduled(key = "tick", fixedRate = "1m", jitter = "1m")
    void run() {}
  }

  static class UnknownCalendar {
    @KairosScheduled(key = "settle", cron = "0 0 9 * * ?", calendar = "nowhere")
    void run() {}
  }

  static class ConcurrentIngest {
    @KairosScheduled(
        key = "ingest",
        fixedRate = "1m",
        overlap = KairosScheduled.OverlapPolicy.ALLOW,
        concurrentRuns = 3)
    void run() {}
  }

  static class AllowWithoutCount {
    @KairosScheduled(
        key = "ingest",
        fixedRate = "1m",
        overlap = KairosScheduled.OverlapPolicy.ALLOW)
    void run() {}
  }

  static class CountWithoutAllow {
    @KairosScheduled(key = "ingest", fixedRate = "1m", concurrentRuns = 3)
    void run() {}
  }

  static class ReportJob implements Job {
    @Override
    public void run(JobContext context) {}
  }

  @KairosHandler("custom-name")
  static class NamedJob implements Job {
    @Override
    public void run(JobContext context) {}
  }

  static class Reports {
    @KairosScheduled(key = "nightly", cron = "0 0 2 * * *")
    void nightly() {}
  }

  /** Declared Object, made after the scan (it needs the scheduler): the scan saw Object. */
  @Configuration
  static class ObjectTypedJob {
    @Bean
    Object objectTypedJob(Scheduler scheduler) {
      return new NamedJob();
    }
  }

  /** Declared Job, made after the scan: the scan saw Job, not the class's @KairosHandler. */
  @Configuration
  static class JobTypedNamedJob {
    @Bean
    Job jobTypedNamedJob(Scheduler scheduler) {
      return new NamedJob();
    }
  }

  /** Declared Object, made after the scan: the scan saw no @KairosScheduled method. */
  @Configuration
  static class ObjectTypedReports {
    @Bean
    Object objectTypedReports(Scheduler scheduler) {
      return new Reports();
    }
  }

  /** Declared Job, made after the scan, of a class that declares nothing more: fine. */
  @Configuration
  static class JobTypedPlainJob {
    @Bean
    Job jobTypedPlainJob(Scheduler scheduler) {
      return new ReportJob();
    }
  }

  /** Declared Object but made before the scan, which then sees the objects themselves. */
  @Configuration
  static class EarlyObjectTypedBeans {
    @Bean
    Object earlyJob() {
      return new NamedJob();
    }

    @Bean
    Object earlyReports() {
      return new Reports();
    }
  }

  @KairosHandler("")
  static class EmptyHandlerName implements Job {
    @Override
    public void run(JobContext context) {}
  }

  @KairosHandler("  ")
  static class BlankHandlerName implements Job {
    @Override
    public void run(JobContext context) {}
  }

  static class ZoneWithFixedRate {
    @KairosScheduled(fixedRate = "1m", zone = "Europe/Berlin")
    void run() {}
  }

  static class SyntaxWithFixedDelay {
    @KairosScheduled(fixedDelay = "1m", syntax = dev.kairos.CronSyntax.QUARTZ)
    void run() {}
  }

  static class DstGapWithFixedRate {
    @KairosScheduled(fixedRate = "1m", dstGap = dev.kairos.DstPolicy.Gap.SKIP)
    void run() {}
  }

  static class DstOverlapWithFixedDelay {
    @KairosScheduled(fixedDelay = "1m", dstOverlap = dev.kairos.DstPolicy.Overlap.BOTH)
    void run() {}
  }

  static class InitialDelayWithCron {
    @KairosScheduled(cron = "0 0 2 * * *", initialDelay = "10s")
    void run() {}
  }

  static class CalendarPolicyWithoutCalendar {
    @KairosScheduled(fixedRate = "1m", calendarPolicy = dev.kairos.CalendarPolicy.NEXT_ALLOWED)
    void run() {}
  }

  static class RetryDelayWithoutRetries {
    @KairosScheduled(fixedRate = "1m", retryDelay = "5s")
    void run() {}
  }

  /** What a profile leaves unused, and a default written another way: accepted. */
  static class PlaceholdersAndSpellings {
    @KairosScheduled(
        key = "a",
        fixedRate = "1m",
        calendar = "${jobs.calendar:}",
        calendarPolicy = dev.kairos.CalendarPolicy.NEXT_ALLOWED)
    void a() {}

    @KairosScheduled(key = "b", fixedRate = "1m", retryDelay = "${jobs.retry-delay:5s}")
    void b() {}

    @KairosScheduled(key = "c", fixedRate = "1m", retryDelay = "PT1S")
    void c() {}

    @KairosScheduled(key = "d", fixedRate = "1m", retryDelay = "1000")
    void d() {}
  }

  @Test
  void placeholderLeftEmptyOrTheDefaultWrittenAnotherWay_isAccepted() {
    runner
        .withBean("jobs", PlaceholdersAndSpellings.class)
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(dev.kairos.Scheduler.class).jobs())
                  .extracting(j -> j.key())
                  .contains("a", "b", "c", "d");
            });
  }

  @Test
  void badCron_namesBeanMethodAndExpression() {
    runner
        .withBean("reports", BadCron.class)
        .run(
            ctx ->
                assertThat(ctx).getFailure().rootCause().hasMessageContaining("hour field '25'"));
    runner
        .withBean("reports", BadCron.class)
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .hasStackTraceContaining(
                        "@KairosScheduled on bean 'reports' method 'report': job 'reports.report'")
                    .hasStackTraceContaining("0 0 25 * * *"));
  }

  @Test
  void unknownZone_namesBeanMethodAndZone() {
    runner
        .withBean("reports", BadZone.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining(
                        "@KairosScheduled on bean 'reports' method 'report': unknown zone 'Europe/Atlantis'"));
  }

  @Test
  void twoSchedules_areRefused() {
    runner
        .withBean("reports", TwoSchedules.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining("set exactly one of cron, fixedRate, fixedDelay"));
  }

  /** A key given but blank, and a negative catchUpMax, are refused, not taken as defaults. */
  @Test
  void blankKeyAndNegativeCatchUpMax_areRefused() {
    runner
        .withBean("reports", BlankKey.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasStackTraceContaining(
                        "key '   ' is blank; leave it out for reports.report"));
    runner
        .withBean("reports", NegativeCatchUpMax.class)
        .run(
            ctx ->
                assertThat(ctx).getFailure().hasStackTraceContaining("catchUpMax -5 is negative"));
  }

  /** {@code @KairosHandler} on a class that is no {@code Job} fails the start, naming the bean. */
  @Test
  void kairosHandlerOnAClassThatIsNoJob_isRefused() {
    runner
        .withBean("reports", HandlerThatIsNoJob.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasStackTraceContaining("@KairosHandler on bean 'reports'")
                    .hasStackTraceContaining("is no dev.kairos.Job"));
  }

  @Test
  void badDuration_namesAttributeAndValue() {
    runner
        .withBean("reports", BadDuration.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining("method 'report': fixedRate 'often' is not a duration"));
  }

  @Test
  void badParameter_isRefused() {
    runner
        .withBean("reports", BadParameter.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining("no parameter or one JobContext"));
  }

  @Test
  void twoJobsWithOneKey_nameBothDeclarations() {
    runner
        .withBean("first", SameKeyA.class)
        .withBean("second", SameKeyB.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining("two Kairos handlers named 'report'")
                    .hasMessageContaining("bean 'first' method 'a'")
                    .hasMessageContaining("bean 'second' method 'b'"));
  }

  @Test
  void annotationAndJobBean_withOneName_clash() {
    runner
        .withBean("report", ReportJob.class)
        .withBean("first", SameKeyA.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining("Job bean 'report'")
                    .hasMessageContaining("bean 'first' method 'a'"));
  }

  @Test
  void placeholders_areResolved_andAMissingOneFails() {
    runner
        .withPropertyValues("app.job-key=renamed", "app.rate=30s")
        .withBean("jobs", PlaceholderJob.class)
        .run(ctx -> assertThat(ctx.getBean(dev.kairos.Scheduler.class).job("renamed")).isPresent());
    runner
        .withBean("jobs", MissingPlaceholder.class)
        .run(ctx -> assertThat(ctx).getFailure().hasMessageContaining("app.undefined"));
  }

  @Test
  void catchUpWindowAndJitter_reachTheSpec() {
    runner
        .withBean("jobs", WindowAndJitter.class)
        .run(
            ctx ->
                assertThat(ctx.getBean(dev.kairos.Scheduler.class).job("sync").orElseThrow().spec())
                    .satisfies(
                        s -> {
                          assertThat(s.misfire())
                              .isEqualTo(
                                  dev.kairos.Misfire.catchUp()
                                      .within(java.time.Duration.ofHours(6)));
                          assertThat(s.jitter()).contains(java.time.Duration.ofMinutes(10));
                        }));
  }

  @Test
  void catchUpWindowWithoutCatchUp_andJitterOfAPeriod_areRefused() {
    runner
        .withBean("jobs", WindowWithoutCatchUp.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining("catchUpWindow '6h' needs misfire = CATCH_UP"));
    runner
        .withBean("jobs", JitterOfAPeriod.class)
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .hasStackTraceContaining("job 'tick'")
                    .hasStackTraceContaining("jitter PT1M must be shorter"));
  }

  @Test
  void unknownCalendar_refusedNamingJobAndCalendar() {
    runner
        .withBean("jobs", UnknownCalendar.class)
        .run(
            ctx ->
                assertThat(ctx.getStartupFailure())
                    .hasStackTraceContaining("job 'settle'")
                    .hasStackTraceContaining("calendar 'nowhere' does not exist"));
  }

  @Test
  void overlapAllow_reachesTheSpec_andBadCombinationsAreRefusedByName() {
    runner
        .withBean("jobs", ConcurrentIngest.class)
        .run(
            ctx ->
                assertThat(ctx.getBean(dev.kairos.Scheduler.class).job("ingest").orElseThrow())
                    .extracting(j -> j.spec().overlap())
                    .isEqualTo(dev.kairos.Overlap.allow(3)));
    runner
        .withBean("jobs", AllowWithoutCount.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining("method 'run': overlap = ALLOW needs concurrentRuns"));
    runner
        .withBean("jobs", CountWithoutAllow.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .hasMessageContaining("concurrentRuns 3 is set, but overlap is FORBID"));
  }

  /**
   * An attribute that does not apply to the job's schedule kind (or lacks the attribute it goes
   * with) is refused naming bean, method, attribute and value, not silently dropped.
   */
  @Test
  void attributeThatDoesNotApply_isRefusedNamingBeanMethodAttributeAndValue() {
    String at = "@KairosScheduled on bean 'jobs' method 'run': ";
    java.util.Map<Class<?>, String> cases = new java.util.LinkedHashMap<>();
    cases.put(
        ZoneWithFixedRate.class,
        at + "zone 'Europe/Berlin' applies to cron only, not to fixedRate");
    cases.put(
        SyntaxWithFixedDelay.class, at + "syntax QUARTZ applies to cron only, not to fixedDelay");
    cases.put(DstGapWithFixedRate.class, at + "dstGap SKIP applies to cron only, not to fixedRate");
    cases.put(
        DstOverlapWithFixedDelay.class,
        at + "dstOverlap BOTH applies to cron only, not to fixedDelay");
    cases.put(
        InitialDelayWithCron.class,
        at + "initialDelay '10s' applies to fixedRate and fixedDelay only, not to cron");
    cases.put(
        CalendarPolicyWithoutCalendar.class,
        at + "calendarPolicy NEXT_ALLOWED needs a calendar (calendar is not set)");
    cases.put(
        RetryDelayWithoutRetries.class,
        at + "retryDelay '5s' needs retryAttempts above 1 (retryAttempts is 1)");
    cases.forEach(
        (type, message) ->
            runner
                .withBean("jobs", type)
                .run(
                    ctx ->
                        assertThat(ctx)
                            .as(type.getSimpleName())
                            .getFailure()
                            .rootCause()
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage(message)));
  }

  /** An empty or blank {@code @KairosHandler} name is refused naming the bean and its class. */
  @Test
  void blankKairosHandlerName_isRefusedNamingTheBean() {
    for (Class<?> type : List.of(EmptyHandlerName.class, BlankHandlerName.class)) {
      String value = type == EmptyHandlerName.class ? "" : "  ";
      runner
          .withBean("exporter", type)
          .run(
              ctx ->
                  assertThat(ctx)
                      .as(type.getSimpleName())
                      .getFailure()
                      .rootCause()
                      .isInstanceOf(IllegalStateException.class)
                      .hasMessage(
                          "@KairosHandler(\""
                              + value
                              + "\") on bean 'exporter' ("
                              + type.getName()
                              + "): the handler name is blank; leave the annotation out to use"
                              + " the bean name 'exporter'"));
    }
  }

  /**
   * A bean whose declared type ({@code @Bean Object}, or {@code Job} for a class with {@code
   * KairosHandler}) hides what it declares, and that is made after the handler scan, fails the
   * start naming the bean, the declared type and the class, instead of being missed or registered
   * under its bean name; one the scan saw made is registered as it declares; a plain Job declared
   * as {@code Job} is fine.
   */
  @Test
  void beanWhoseDeclaredTypeHidesWhatItDeclares_isFoundOrRefused_neverMissed() {
    String after = ", before the bean was made; declare the @Bean method's return type as ";
    Map<Class<?>, String> cases = new LinkedHashMap<>();
    cases.put(
        ObjectTypedJob.class,
        "bean 'objectTypedJob' is a "
            + NamedJob.class.getName()
            + " (a Job, @KairosHandler(\"custom-name\")), but Kairos looked for handlers by its"
            + " declared type java.lang.Object (nothing for Kairos)"
            + after
            + "NamedJob");
    cases.put(
        JobTypedNamedJob.class,
        "bean 'jobTypedNamedJob' is a "
            + NamedJob.class.getName()
            + " (a Job, @KairosHandler(\"custom-name\")), but Kairos looked for handlers by its"
            + " declared type dev.kairos.Job (a Job)"
            + after
            + "NamedJob");
    cases.put(
        ObjectTypedReports.class,
        "bean 'objectTypedReports' is a "
            + Reports.class.getName()
            + " (@KairosScheduled methods [nightly]), but Kairos looked for handlers by its"
            + " declared type java.lang.Object (nothing for Kairos)"
            + after
            + "Reports");
    cases.forEach(
        (config, message) ->
            runner
                .withUserConfiguration(config)
                .run(
                    ctx ->
                        assertThat(ctx)
                            .as(config.getSimpleName())
                            .getFailure()
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage(message)));
    runner
        .withUserConfiguration(JobTypedPlainJob.class)
        .run(
            ctx ->
                assertThat(
                        ctx.getBean(KairosAutoConfiguration.DeclaredJobsHolder.class)
                            .handlerNames())
                    .containsExactly("jobTypedPlainJob"));
    runner
        .withUserConfiguration(EarlyObjectTypedBeans.class)
        .run(
            ctx -> {
              assertThat(
                      ctx.getBean(KairosAutoConfiguration.DeclaredJobsHolder.class).handlerNames())
                  .containsExactlyInAnyOrder("custom-name", "nightly");
              assertThat(ctx.getBean(Scheduler.class).job("nightly")).isPresent();
            });
  }
}
