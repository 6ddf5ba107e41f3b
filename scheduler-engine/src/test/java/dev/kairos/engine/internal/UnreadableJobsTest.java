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

  /** A scheduler over {@code store} whose handler "h" adds each run's key to {@code runs}. */
  private static KairosScheduler recording(
      InMemoryStore store, ManualClock clock, List<String> runs) {
    return Engines.build(
        Kairos.builder().store(store).clock(clock).handler("h", ctx -> runs.add(ctx.key())));
  }

  @Test
  void recordsBreakingRules_notFired_listed_untilScheduledAgain() {
    InMemoryStore store = new InMemoryStore();
    List<String> runs = new ArrayList<>();
    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = recording(store, clock, runs);
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
          .isEqualTo("fixed-rate period must be positive: PT0S");
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
    KairosScheduler s = recording(store, clock, runs);
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

  /**
   * Records {@code schedule()} would refuse for a reason only the engine can judge (cron syntax, a
   * cron that never fires) or that only a hand edit makes (a period under 1 ms, a paused job due on
   * its timetable, attempts beyond the retry policy, counts no run leaves): none fires, each is
   * listed naming the job and the rule, and the store keeps the record as it was.
   */
  @Test
  void recordsOnlyAHandEditMakes_notFired_listed_leftAsTheyAre() {
    InMemoryStore store = new InMemoryStore();
    List<String> runs = new ArrayList<>();
    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = recording(store, clock, runs);
    JobSpec rate = JobSpec.named("good").handler("h").fixedRate(MINUTE);
    store.upsert(JobRecord.fresh(rate, T0));
    java.util.Map<String, JobRecord> bad = new java.util.LinkedHashMap<>();
    java.time.ZoneId utc = java.time.ZoneOffset.UTC;
    bad.put(
        "cron-99",
        JobRecord.fresh(JobSpec.named("cron-99").handler("h").cron("99 * * * * ?", utc), T0));
    bad.put(
        "cron-feb-30",
        JobRecord.fresh(JobSpec.named("cron-feb-30").handler("h").cron("0 0 0 30 2 ?", utc), T0));
    bad.put(
        "cron-no-zone",
        JobRecord.fresh(JobSpec.named("cron-no-zone").handler("h").cron("0 * * * * ?"), T0));
    bad.put(
        "sub-ms",
        JobRecord.fresh(
            JobSpec.named("sub-ms")
                .handler("h")
                .schedule(new Schedule.FixedRate(Duration.ofNanos(100_000))),
            T0));
    JobRecord paused = JobRecord.fresh(JobSpec.named("paused").handler("h").fixedRate(MINUTE), T0);
    bad.put("paused", paused.withSchedule(paused.schedule().withState(dev.kairos.JobState.PAUSED)));
    JobRecord attempt =
        JobRecord.fresh(JobSpec.named("attempt").handler("h").fixedRate(MINUTE), T0);
    bad.put(
        "attempt",
        attempt.withSchedule(
            dev.kairos.JobState.SCHEDULED, T0, T0, dev.kairos.spi.FireKind.TIMETABLE, 2));
    JobRecord counts = JobRecord.fresh(JobSpec.named("counts").handler("h").fixedRate(MINUTE), T0);
    bad.put(
        "counts",
        new JobRecord(
            counts.spec(),
            counts.schedule(),
            new dev.kairos.spi.RunStats(null, null, null, null, null, 1, 2),
            counts.version()));
    bad.values().forEach(store::upsert);
    java.util.Map<String, JobRecord> stored = new java.util.HashMap<>();
    bad.keySet().forEach(k -> stored.put(k, store.find(k).orElseThrow()));
    try {
      s.open();
      s.runDue();

      assertThat(runs).containsExactly("good");
      java.util.Map<String, String> reasons = new java.util.TreeMap<>();
      s.unreadable().forEach(u -> reasons.put(u.key(), u.reason()));
      assertThat(reasons).containsOnlyKeys(bad.keySet());
      assertThat(reasons)
          .containsEntry("attempt", "attempt 2 is beyond the retry policy's 1 attempt(s)")
          .containsEntry("counts", "failure count 2 is more than the run count 1")
          .containsEntry(
              "cron-feb-30",
              "cron expression '0 0 0 30 2 ?' never fires: no date matches"
                  + " its day-of-month, month, day-of-week and year fields together")
          .containsEntry("cron-no-zone", "cron schedule '0 * * * * ?' has no time zone")
          .containsEntry(
              "paused",
              "a PAUSED job has a due time: "
                  + T0
                  + " (TIMETABLE); only a triggerNow() makes it due")
          .containsEntry("sub-ms", "fixed-rate period must be at least 1 ms: PT0.0001S");
      assertThat(reasons.get("cron-99")).startsWith("invalid cron expression").contains("99");
      stored.forEach((k, r) -> assertThat(store.find(k)).as(k).contains(r));
    } finally {
      s.close();
    }
  }

  /**
   * {@code unreadable()} judges every stored job by the engine's rules too, whether or not a window
   * load has met it: here before any start, and a job far beyond any window.
   */
  @Test
  void unreadable_beforeAnyLoad_listsWhatOnlyTheEngineRefuses() {
    InMemoryStore store = new InMemoryStore();
    java.time.ZoneId utc = java.time.ZoneOffset.UTC;
    store.upsert(
        JobRecord.fresh(JobSpec.named("cron-99").handler("h").cron("99 * * * * ?", utc), T0));
    store.upsert(
        JobRecord.fresh(
            JobSpec.named("far").handler("h").cron("0 0 0 30 2 ?", utc),
            T0.plus(Duration.ofDays(3650))));
    store.upsert(JobRecord.fresh(JobSpec.named("fine").handler("h").fixedRate(MINUTE), T0));
    KairosScheduler s = recording(store, new ManualClock(T0), new ArrayList<>());
    try {
      assertThat(s.unreadable()).extracting(UnreadableJob::key).containsExactly("cron-99", "far");
    } finally {
      s.close();
    }
  }
}
