package dev.kairos.engine.internal;

import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Misfire;
import dev.kairos.Retry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** schedule as an upsert, pause, resume, trigger, unschedule, and rejected input. */
class ScheduleChangesTest {
  private final Harness h = new Harness(ctx -> {});

  private static JobSpec every10s() {
    return JobSpec.named("j").handler("h").fixedRate(ofSeconds(10)).data("{\"a\":1}");
  }

  @Test
  void schedule_sameDefinitionAgain_keepsStateAndCounters() {
    h.scheduler.schedule(every10s());
    h.runUntil(Harness.T0.plusSeconds(15));
    JobInfo before = h.scheduler.job("j").orElseThrow();

    JobInfo after = h.scheduler.schedule(every10s());

    assertThat(after).isEqualTo(before);
    assertThat(after.runCount()).isEqualTo(2);
    assertThat(after.nextFireTime()).isEqualTo(Harness.T0.plusSeconds(20));
  }

  @Test
  void schedule_changedDefinition_replacesItAndRecomputesNextFire() {
    h.scheduler.schedule(every10s());
    h.runUntil(Harness.T0.plusSeconds(15));

    JobInfo after =
        h.scheduler.schedule(every10s().fixedRate(ofSeconds(60)).initialDelay(ofSeconds(60)));

    assertThat(after.nextFireTime()).isEqualTo(Harness.T0.plusSeconds(75));
    assertThat(after.runCount()).isEqualTo(2);
    h.runUntil(Harness.T0.plusSeconds(80));
    assertThat(h.fires()).containsExactly(0L, 10_000L, 75_000L);
  }

  /** A changed catch-up window or jitter is a changed definition: the upsert replaces the job. */
  @Test
  void schedule_changedWindowOrJitter_isAChangedDefinition() {
    JobSpec base = every10s().misfire(Misfire.catchUp().within(ofSeconds(30)));
    long v1 = versionAfter(base);

    assertThat(versionAfter(base)).isEqualTo(v1);
    long v2 = versionAfter(base.misfire(Misfire.catchUp().within(ofSeconds(40))));
    assertThat(v2).isGreaterThan(v1);
    long v3 = versionAfter(base.misfire(Misfire.catchUp()));
    assertThat(v3).isGreaterThan(v2);
    long v4 = versionAfter(base.misfire(Misfire.catchUp()).jitter(ofSeconds(3)));
    assertThat(v4).isGreaterThan(v3);
    long v5 = versionAfter(base.misfire(Misfire.catchUp()).jitter(ofSeconds(4)));
    assertThat(v5).isGreaterThan(v4);
    assertThat(versionAfter(base.misfire(Misfire.catchUp()).jitter(ofSeconds(4)))).isEqualTo(v5);
    assertThat(h.scheduler.job("j").orElseThrow().spec().jitter()).contains(ofSeconds(4));
  }

  private long versionAfter(JobSpec spec) {
    h.scheduler.schedule(spec);
    return h.store.find("j").orElseThrow().version();
  }

  @Test
  void jitterZero_isNoJitter() {
    assertThat(every10s().jitter(Duration.ZERO)).isEqualTo(every10s());
    assertThat(every10s().jitter(Duration.ZERO).jitter()).isEmpty();
    assertThat(every10s().jitter(ofSeconds(1))).isNotEqualTo(every10s());
  }

  @Test
  void pauseResumeTriggerUnschedule() {
    h.scheduler.schedule(every10s());
    h.runUntil(Harness.T0);

    assertThat(h.scheduler.pause("j")).isTrue();
    h.runUntil(Harness.T0.plusSeconds(5));
    assertThat(h.scheduler.job("j").orElseThrow().state()).isEqualTo(JobState.PAUSED);

    assertThat(h.scheduler.triggerNow("j")).isTrue(); // runs although paused
    h.runUntil(Harness.T0.plusSeconds(6));
    assertThat(h.scheduler.job("j").orElseThrow().state()).isEqualTo(JobState.PAUSED);

    assertThat(h.scheduler.resume("j")).isTrue();
    h.runUntil(Harness.T0.plusSeconds(10));

    assertThat(h.scheduler.unschedule("j")).isTrue();
    h.runUntil(Harness.T0.plusSeconds(60));

    assertThat(h.starts()).containsExactly(0L, 5000L, 10_000L);
    assertThat(h.runs.get(1).data()).contains("{\"a\":1}");
    assertThat(h.scheduler.job("j")).isEmpty();
    assertThat(h.scheduler.pause("j")).isFalse();
    assertThat(h.scheduler.unschedule("j")).isFalse();
  }

  @Test
  void triggerNow_doesNotMoveTheTimetable() {
    h.scheduler.schedule(every10s());
    h.runUntil(Harness.T0.plusSeconds(3));

    h.scheduler.triggerNow("j");
    h.runUntil(Harness.T0.plusSeconds(20));

    assertThat(h.starts()).containsExactly(0L, 3000L, 10_000L, 20_000L);
  }

  static Stream<Arguments> badSpecs() {
    JobSpec ok = JobSpec.named("k").handler("h").fixedRate(ofSeconds(1));
    return Stream.of(
        bad(JobSpec.named(null).handler("h").fixedRate(ofSeconds(1)), "null"),
        bad(JobSpec.named("  ").handler("h").fixedRate(ofSeconds(1)), "blank"),
        bad(ok.handler(null), "'k'", "handler"),
        bad(ok.handler(" "), "'k'", "handler"),
        bad(ok.handler("nope"), "'k'", "'nope'", "not registered"),
        bad(JobSpec.named("k").handler("h"), "'k'", "no schedule"),
        bad(ok.fixedRate(Duration.ZERO), "'k'", "period", "PT0S"),
        bad(ok.fixedRate(ofSeconds(-1)), "'k'", "period", "PT-1S"),
        bad(JobSpec.named("k").handler("h").fixedDelay(Duration.ZERO), "'k'", "delay", "PT0S"),
        bad(JobSpec.named("k").handler("h").fixedDelay(ofSeconds(-5)), "'k'", "delay", "PT-5S"),
        bad(JobSpec.named("k").handler("h").at(null), "'k'", "one-shot time is null"),
        bad(JobSpec.named("k").handler("h").after(null), "'k'", "one-shot time is null"),
        bad(
            ok.misfire(Misfire.skip().threshold(Duration.ofMillis(-1))),
            "'k'",
            "threshold",
            "PT-0.001S"),
        bad(ok.misfire(Misfire.catchUp(0)), "'k'", "catchUp", "0"),
        bad(ok.retry(Retry.backoff(0, ofSeconds(1))), "'k'", "attempts", "0"),
        bad(ok.retry(Retry.backoff(3, ofSeconds(-1))), "'k'", "retry", "PT-1S"),
        bad(ok.initialDelay(ofSeconds(-1)), "'k'", "initial delay", "PT-1S"),
        bad(ok.misfire(Misfire.catchUp().within(Duration.ZERO)), "'k'", "window", "PT0S"),
        bad(ok.misfire(Misfire.catchUp(3).within(ofSeconds(-1))), "'k'", "window", "PT-1S"),
        bad(ok.jitter(ofSeconds(-1)), "'k'", "jitter", "PT-1S"),
        bad(ok.jitter(ofSeconds(1)), "'k'", "jitter", "PT1S", "period"),
        bad(ok.jitter(ofSeconds(2)), "'k'", "jitter", "PT2S", "period"),
        bad(
            JobSpec.named("k").handler("h").at(Instant.EPOCH).jitter(ofSeconds(1)),
            "'k'",
            "jitter",
            "PT1S",
            "one-shot"));
  }

  private static Arguments bad(JobSpec spec, String... words) {
    return Arguments.of(spec, List.of(words));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("badSpecs")
  void schedule_badInput_failsNamingKeyAndValue_andDisturbsNothing(
      JobSpec bad, List<String> words) {
    h.scheduler.schedule(JobSpec.named("k").handler("h").fixedRate(ofSeconds(1)));
    JobInfo before = h.scheduler.job("k").orElseThrow();

    assertThatThrownBy(() -> h.scheduler.schedule(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .contains(words.toArray(String[]::new));

    assertThat(h.scheduler.job("k")).contains(before);
    assertThat(h.scheduler.jobs()).hasSize(1);
    h.runUntil(Harness.T0.plusSeconds(1));
    assertThat(h.fires()).containsExactly(0L, 1000L);
  }

  @Test
  void oneShotInThePast_firesAtOnceUnderTheDefaultPolicy() {
    h.clock.advance(ofSeconds(30));
    h.scheduler.schedule(
        JobSpec.named("late").handler("h").at(Instant.parse("2026-01-04T00:00:00Z")));

    h.runUntil(Harness.T0.plusSeconds(30));

    assertThat(h.starts()).containsExactly(30_000L);
    assertThat(h.runs.get(0).missedFires()).isEqualTo(1);
  }
}
