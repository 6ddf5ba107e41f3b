package dev.kairos.engine.internal;

import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.engine.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Jitter end to end over the step API: each timetable fire starts at its scheduled fire time plus
 * its offset, the context shows the scheduled (unjittered) time, and nothing counts as a misfire.
 */
class JitteredFiresTest {
  private static final Duration JITTER = ofSeconds(30);

  static Stream<Arguments> schedules() {
    JobSpec base = JobSpec.named("j").handler("h").jitter(JITTER);
    return Stream.of(
        Arguments.of("fixed rate", base.fixedRate(ofMinutes(1))),
        Arguments.of("fixed delay", base.fixedDelay(ofMinutes(1))),
        Arguments.of("cron", base.cron("0 * * * * ?", ZoneOffset.UTC)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedules")
  void jitteredJob_startsAtFirePlusOffset_andReportsTheScheduledFireTime(
      String kind, JobSpec spec) {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(spec.misfire(Misfire.skip().threshold(Duration.ZERO)));

    h.runUntil(Harness.T0.plus(ofMinutes(10)));

    assertThat(h.runs).hasSizeGreaterThanOrEqualTo(6); // fixed delay drifts by the offsets
    for (JobContext run : h.runs) {
      Instant fire = run.scheduledFireTime();
      assertThat(run.actualStart()).isEqualTo(fire.plus(Jitter.offset("j", fire, JITTER)));
      assertThat(run.missedFires()).isZero();
    }
    assertThat(h.runs.stream().map(r -> Duration.between(r.scheduledFireTime(), r.actualStart())))
        .as("offsets differ from fire to fire")
        .hasSizeGreaterThan(1)
        .doesNotHaveDuplicates();
  }

  /** The store keeps the nominal next fire time and the jittered due time. */
  @Test
  void store_holdsNominalFireAndJitteredDue() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(JobSpec.named("j").handler("h").fixedRate(ofMinutes(1)).jitter(JITTER));

    var r = h.store.find("j").orElseThrow();

    assertThat(r.nextFireTime()).isEqualTo(Harness.T0);
    assertThat(r.dueTime()).isEqualTo(Harness.T0.plus(Jitter.offset("j", Harness.T0, JITTER)));
    assertThat(h.scheduler.job("j").orElseThrow().nextFireTime()).isEqualTo(Harness.T0);
  }

  /** A second scheduler over the same store (a restart, another instance) runs the same times. */
  @Test
  void restart_runsTheSameJitteredTimes() {
    InMemoryStore store = new InMemoryStore();
    JobSpec spec = JobSpec.named("j").handler("h").fixedRate(ofMinutes(1)).jitter(JITTER);
    Harness first = new Harness(store, ctx -> {});
    first.scheduler.schedule(spec);
    first.runUntil(Harness.T0.plus(ofMinutes(3)));
    first.scheduler.close();

    Harness second = new Harness(store, ctx -> {});
    second.clock.set(Harness.T0.plus(ofMinutes(3)));
    second.runUntil(Harness.T0.plus(ofMinutes(6)));

    Harness alone = new Harness(ctx -> {});
    alone.scheduler.schedule(spec);
    alone.runUntil(Harness.T0.plus(ofMinutes(6)));
    List<Long> both = Stream.concat(first.starts().stream(), second.starts().stream()).toList();
    assertThat(both).isEqualTo(alone.starts()).hasSize(6);
  }

  /** A paused and resumed job is due at its next fire plus that fire's offset. */
  @Test
  void resume_isDueAtTheJitteredTime() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(JobSpec.named("j").handler("h").fixedRate(ofMinutes(1)).jitter(JITTER));
    h.scheduler.pause("j");
    h.scheduler.resume("j");

    assertThat(h.store.find("j").orElseThrow().dueTime())
        .isEqualTo(Harness.T0.plus(Jitter.offset("j", Harness.T0, JITTER)));
  }
}
