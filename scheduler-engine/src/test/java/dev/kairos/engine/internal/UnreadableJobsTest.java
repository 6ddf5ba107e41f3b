package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Schedule;
import dev.kairos.UnreadableJob;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The engine applies {@code JobRules} to what any store returns, so a store without checks of its
 * own (here the in-memory store, given records directly through the SPI) cannot make it fire a job
 * {@code schedule()} would refuse.
 */
class UnreadableJobsTest {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");
  static final Duration MINUTE = Duration.ofMinutes(1);

  @Test
  void recordsBreakingRules_notFired_listed_untilScheduledAgain() {
    InMemoryStore store = new InMemoryStore();
    List<String> runs = new ArrayList<>();
    ManualClock clock = new ManualClock(T0);
    KairosScheduler s =
        Kairos.builder()
            .store(store)
            .clock(clock)
            .handler("h", ctx -> runs.add(ctx.key()))
            .buildEngine();
    JobSpec good = JobSpec.named("good").handler("h").fixedRate(MINUTE);
    JobSpec zero = good.schedule(new Schedule.FixedRate(Duration.ZERO));
    Instant yearOne = Instant.parse("0001-01-01T00:00:00Z");
    store.upsert(JobRecord.fresh(good, T0));
    store.upsert(JobRecord.fresh(JobSpec.named("zero").handler("h").schedule(zero.schedule()), T0));
    store.upsert(
        JobRecord.fresh(
            JobSpec.named("year-one").handler("h").fixedRate(MINUTE).misfire(Misfire.catchUp()),
            yearOne));
    try {
      s.open();
      s.runDue();

      assertThat(runs).containsExactly("good");
      assertThat(s.unreadable()).extracting(UnreadableJob::key).containsExactly("year-one", "zero");
      assertThat(s.unreadable().get(1).reason())
          .isEqualTo("job 'zero': fixed-rate period must be positive: PT0S");
      assertThat(store.find("year-one").orElseThrow().nextFireTime()).isEqualTo(yearOne);

      s.schedule(JobSpec.named("zero").handler("h").fixedRate(MINUTE));
      assertThat(s.unreadable()).extracting(UnreadableJob::key).containsExactly("year-one");
    } finally {
      s.close();
    }
  }

  /** Resuming a catch-up job paused for more than the limit refuses it, as a restart would. */
  @Test
  void resumeAfterMoreThanAYear_underCatchUp_refusedNotReplayed() {
    InMemoryStore store = new InMemoryStore();
    List<String> runs = new ArrayList<>();
    ManualClock clock = new ManualClock(T0);
    KairosScheduler s =
        Kairos.builder()
            .store(store)
            .clock(clock)
            .handler("h", ctx -> runs.add(ctx.key()))
            .buildEngine();
    try {
      s.open();
      s.schedule(
          JobSpec.named("hourly")
              .handler("h")
              .fixedRate(Duration.ofHours(1))
              .startAt(T0.plus(MINUTE))
              .misfire(Misfire.catchUp()));
      s.pause("hourly");
      clock.set(T0.plus(Duration.ofDays(400)));

      s.resume("hourly");
      s.runDue();

      assertThat(runs).isEmpty();
      assertThat(s.unreadable())
          .singleElement()
          .satisfies(u -> assertThat(u.reason()).contains("under catchUp()"));
    } finally {
      s.close();
    }
  }
}
