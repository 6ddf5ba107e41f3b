package dev.kairos.engine.internal;

import static java.time.Duration.ofMillis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Misfire;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Seed 000's timelines, reproduced exactly with a manual clock. */
class TimelineTest {

  /** A job whose first run takes 1000 ms (the clock is advanced inside the run). */
  private static Harness firstRunTakesOneSecond() {
    AtomicInteger n = new AtomicInteger();
    Harness[] h = new Harness[1];
    h[0] =
        new Harness(
            ctx -> {
              if (n.incrementAndGet() == 1) {
                h[0].clock.advance(ofMillis(1000));
              }
            });
    return h[0];
  }

  @Test
  void fixedRate_firstRunOverruns_missedFiresRunBackToBackThenTimetableResumes() {
    Harness h = firstRunTakesOneSecond();
    h.scheduler.schedule(
        JobSpec.named("rate")
            .handler("h")
            .fixedRate(ofMillis(400))
            .initialDelay(ofMillis(200))
            .misfire(Misfire.catchUp()));

    h.runUntilCount(5, Duration.ofSeconds(10));

    assertThat(h.starts()).containsExactly(200L, 1200L, 1200L, 1400L, 1800L);
    assertThat(h.fires()).containsExactly(200L, 600L, 1000L, 1400L, 1800L);
  }

  @Test
  void fixedDelay_firstRunOverruns_nextRunIsDelayAfterEnd() {
    Harness h = firstRunTakesOneSecond();
    h.scheduler.schedule(
        JobSpec.named("delay").handler("h").fixedDelay(ofMillis(400)).initialDelay(ofMillis(200)));

    h.runUntilCount(3, Duration.ofSeconds(10));

    assertThat(h.starts()).containsExactly(200L, 1600L, 2000L);
  }

  @Test
  void oneShot_runsOnceThenComplete() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(JobSpec.named("once").handler("h").after(ofMillis(300)));

    h.runUntil(Harness.T0.plusSeconds(60));

    assertThat(h.starts()).containsExactly(300L);
    assertThat(h.scheduler.job("once").orElseThrow().state()).isEqualTo(JobState.COMPLETE);
    assertThat(h.scheduler.job("once").orElseThrow().next()).isEmpty();
  }

  @Test
  void oneShotAt_instant_runsAtThatInstant() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(JobSpec.named("once").handler("h").at(Harness.T0.plusSeconds(90)));

    h.runUntil(Harness.T0.plusSeconds(600));

    assertThat(h.starts()).containsExactly(90_000L);
  }

  @Test
  void fixedRate_defaultFirstFireIsAtSchedulingTime() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(JobSpec.named("r").handler("h").fixedRate(ofMillis(500)));

    h.runUntil(Harness.T0.plusMillis(1000));

    assertThat(h.starts()).containsExactly(0L, 500L, 1000L);
  }

  @Test
  void fixedRate_startAtInThePast_firstFireIsNextSlotOfItsTimetable() {
    Harness h = new Harness(ctx -> {});
    h.clock.advance(ofMillis(1050));
    h.scheduler.schedule(
        JobSpec.named("r")
            .handler("h")
            .fixedRate(ofMillis(400))
            .startAt(Harness.T0.plusMillis(200)));

    h.runUntil(Harness.T0.plusMillis(2000));

    assertThat(h.starts()).containsExactly(1400L, 1800L);
  }

  @Test
  void equalFireTimes_runInSubmissionOrder() {
    Harness h = new Harness(ctx -> {});
    for (String k : new String[] {"c", "a", "d", "b"}) {
      h.scheduler.schedule(JobSpec.named(k).handler("h").at(Harness.T0.plusSeconds(5)));
    }

    h.runUntil(Harness.T0.plusSeconds(10));

    assertThat(h.runs).extracting(c -> c.key()).containsExactly("c", "a", "d", "b");
  }
}
