package dev.kairos.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.Job;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Misfire;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.jdbc.JdbcStore;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real engine over a database store, across restarts: one scheduler instance closes, another
 * opens over the same tables later, driven by a {@link ManualClock} and the step API (or workers,
 * where the test needs window reloads).
 */
public abstract class RestartContract {
  /** Sunday 23:00 UTC, before the week's first fire. */
  public static final Instant SUN_2300 = Instant.parse("2026-01-04T23:00:00Z");

  /** Monday 01:00 UTC. */
  public static final Instant MON_0100 = Instant.parse("2026-01-05T01:00:00Z");

  /** Monday 02:00 UTC, a daily job's fire time. */
  public static final Instant MON_0200 = Instant.parse("2026-01-05T02:00:00Z");

  /** Thursday 09:00 UTC, the end of the downtime. */
  public static final Instant THU_0900 = Instant.parse("2026-01-08T09:00:00Z");

  /** One day. */
  public static final Duration DAY = Duration.ofDays(1);

  /** Tables of this test's own in the subclass's database. */
  private final String prefix = JdbcStoreContract.nextPrefix();

  private final List<KairosScheduler> schedulers = new ArrayList<>();

  /** Runs seen by the handlers, in order. */
  final List<Run> runs = Collections.synchronizedList(new ArrayList<>());

  /** What a run was: the job and fire, and what the context said about it. */
  record Run(String key, Instant scheduledFireTime, int missedFires, boolean recovery) {}

  /**
   * The database the test's stores live in.
   *
   * @return the database
   */
  protected abstract TestDatabase database();

  @AfterEach
  void closeSchedulers() {
    schedulers.forEach(KairosScheduler::close);
  }

  JdbcStore newStore() {
    return database().builder().tablePrefix(prefix).build();
  }

  String jobs() {
    return prefix + "jobs";
  }

  /** A recording handler. */
  Job recorder() {
    return ctx ->
        runs.add(new Run(ctx.key(), ctx.scheduledFireTime(), ctx.missedFires(), ctx.recovery()));
  }

  /**
   * A scheduler instance over a new store on the test's tables, with the given handlers.
   *
   * @param clock the clock the instance runs on
   * @param handlers the names of the handlers it registers
   * @return the instance, not yet started
   */
  protected KairosScheduler instance(ManualClock clock, List<String> handlers) {
    return instance(clock, handlers, Duration.ofDays(30));
  }

  /**
   * Like {@link #instance(ManualClock, List)}, with this look-ahead.
   *
   * @param clock the clock the instance runs on
   * @param handlers the names of the handlers it registers
   * @param lookAhead the instance's look-ahead
   * @return the instance, not yet started
   */
  protected KairosScheduler instance(ManualClock clock, List<String> handlers, Duration lookAhead) {
    Kairos.Builder b =
        Kairos.builder()
            .store(newStore())
            .clock(clock)
            .lookAhead(lookAhead)
            .defaultZone(ZoneOffset.UTC)
            .workers(2)
            .gracePeriod(Duration.ofSeconds(5));
    handlers.forEach(h -> b.handler(h, recorder()));
    KairosScheduler s = Engines.build(b);
    schedulers.add(s);
    return s;
  }

  // ---- calendars -----------------------------------------------------------------------------

  /**
   * A calendar and a job attached to it survive a restart: the second instance reads both back and
   * fires by the calendar (the Tuesday holiday dropped).
   */
  @Test
  void calendar_andItsJob_surviveARestart() {
    BusinessCalendar desk =
        BusinessCalendar.in(ZoneOffset.UTC)
            .weekdays()
            .excluding(java.time.LocalDate.of(2026, 1, 6))
            .between(java.time.LocalTime.of(1, 0), java.time.LocalTime.of(20, 0));
    JobSpec spec =
        JobSpec.named("daily")
            .handler("daily")
            .cron("0 0 2 * * ?", ZoneOffset.UTC)
            .excluding("desk", CalendarPolicy.SKIP);
    ManualClock clock = new ManualClock(SUN_2300);
    KairosScheduler first = instance(clock, List.of("daily"));
    first.open();
    first.putCalendar("desk", desk);
    first.schedule(spec);
    first.close();

    KairosScheduler second = instance(clock, List.of("daily"));
    second.open();
    assertThat(second.calendar("desk")).contains(desk);
    assertThat(second.job("daily").orElseThrow().spec()).isEqualTo(spec);
    assertThat(second.unreadable()).isEmpty();
    for (Instant t = MON_0200; t.isBefore(THU_0900); t = t.plus(DAY)) {
      clock.set(t);
      second.runDue();
    }
    assertThat(runs)
        .extracting(Run::scheduledFireTime)
        .containsExactly(
            MON_0200, MON_0200.plus(DAY.multipliedBy(2)), MON_0200.plus(DAY.multipliedBy(3)));
  }

  // ---- downtime ------------------------------------------------------------------------------

  /**
   * Misfire policies and what each runs after the downtime.
   *
   * @return one argument set per policy
   */
  public static Stream<Arguments> downtimePolicies() {
    Instant tue = MON_0200.plus(DAY);
    Instant wed = tue.plus(DAY);
    Instant thu = wed.plus(DAY);
    return Stream.of(
        Arguments.of(Misfire.catchUp(), List.of(MON_0200, tue, wed, thu), List.of(1, 1, 1, 1)),
        Arguments.of(Misfire.catchUp(2), List.of(wed, thu), List.of(1, 1)),
        Arguments.of(Misfire.fireOnce(), List.of(thu), List.of(4)),
        Arguments.of(Misfire.skip(), List.of(), List.of()));
  }

  /**
   * A daily job whose instance was down from Monday 01:00 to Thursday 09:00 runs the fires it
   * missed as its misfire policy says, then waits for Friday 02:00.
   */
  @ParameterizedTest
  @MethodSource("downtimePolicies")
  void downtime_missedFiresFollowPolicyAfterRestart(
      Misfire policy, List<Instant> fires, List<Integer> missed) {
    ManualClock clock = new ManualClock(SUN_2300);
    KairosScheduler first = instance(clock, List.of("daily"));
    first.open();
    first.schedule(
        JobSpec.named("daily").handler("daily").fixedRate(DAY).startAt(MON_0200).misfire(policy));
    clock.set(MON_0100);
    first.runDue();
    first.close();
    assertThat(runs).isEmpty();

    clock.set(THU_0900);
    KairosScheduler second = instance(clock, List.of("daily"));
    second.open();
    second.runDue();

    assertThat(runs).extracting(Run::scheduledFireTime).containsExactlyElementsOf(fires);
    assertThat(runs).extracting(Run::missedFires).containsExactlyElementsOf(missed);
    assertThat(runs).extracting(Run::recovery).doesNotContain(true);
    JobInfo daily = second.job("daily").orElseThrow();
    assertThat(daily.nextFireTime()).isEqualTo(Instant.parse("2026-01-09T02:00:00Z"));
    assertThat(daily.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(daily.runCount()).isEqualTo(fires.size());
    List<RunRecord> history = second.history("daily", 10);
    assertThat(history)
        .filteredOn(r -> r.outcome() != RunOutcome.SKIPPED)
        .extracting(r -> r.scheduledFireTime())
        .containsExactlyElementsOf(reversed(fires));
    assertThat(history)
        .filteredOn(r -> r.outcome() != RunOutcome.SKIPPED)
        .extracting(r -> r.missedFires())
        .containsExactlyElementsOf(reversed(missed));
    // The history accounts for each of the four missed slots once: run, coalesced or skipped.
    assertThat(
            history.stream()
                .mapToInt(
                    r ->
                        r.outcome() == RunOutcome.SKIPPED
                            ? r.missedFires()
                            : Math.max(1, r.missedFires()))
                .sum())
        .isEqualTo(4);
  }

  private static <T> List<T> reversed(List<T> list) {
    List<T> copy = new ArrayList<>(list);
    Collections.reverse(copy);
    return copy;
  }

  // ---- changes -------------------------------------------------------------------------------

  /** Pause, resume, unschedule and reschedule made before a restart are in force after it. */
  @Test
  void scheduleChanges_madeBeforeClose_inForceAfterReopen() {
    ManualClock clock = new ManualClock(MON_0100);
    Instant at0200 = MON_0200;
    KairosScheduler first = instance(clock, List.of("h"));
    first.open();
    for (String key : List.of("paused", "resumed", "gone", "moved")) {
      first.schedule(
          JobSpec.named(key).handler("h").fixedRate(Duration.ofHours(1)).startAt(at0200));
    }
    first.pause("paused");
    first.pause("resumed");
    first.resume("resumed");
    first.unschedule("gone");
    first.schedule(
        JobSpec.named("moved")
            .handler("h")
            .fixedRate(Duration.ofHours(2))
            .startAt(at0200.plusSeconds(3600)));
    first.close();

    clock.set(at0200);
    KairosScheduler second = instance(clock, List.of("h"));
    second.open();
    second.runDue();
    clock.set(at0200.plusSeconds(3600));
    second.runDue();

    assertThat(runs)
        .extracting(Run::key, Run::scheduledFireTime)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("resumed", at0200),
            org.assertj.core.groups.Tuple.tuple("moved", at0200.plusSeconds(3600)),
            org.assertj.core.groups.Tuple.tuple("resumed", at0200.plusSeconds(3600)));
    assertThat(second.jobs())
        .extracting(JobInfo::key)
        .containsExactly("moved", "paused", "resumed");
    assertThat(second.job("paused").orElseThrow().state()).isEqualTo(JobState.PAUSED);
    assertThat(second.job("moved").orElseThrow().spec().schedule())
        .isEqualTo(new dev.kairos.Schedule.FixedRate(Duration.ofHours(2)));
  }

  // ---- rows the engine cannot use ------------------------------------------------------------

  /** A row edited by hand into nonsense is skipped; the other jobs run; the row is untouched. */
  @Test
  void badRow_otherJobsLoadAndRun_rowLeftUnchanged() {
    ManualClock clock = new ManualClock(MON_0100);
    KairosScheduler first = instance(clock, List.of("h"));
    first.open();
    for (String key : List.of("a", "b", "c")) {
      first.schedule(
          JobSpec.named(key).handler("h").fixedRate(Duration.ofHours(1)).startAt(MON_0200));
    }
    first.close();
    database().execute("UPDATE " + jobs() + " SET schedule_kind = 'BOGUS' WHERE job_key = 'b'");
    Map<String, Object> before = bRow();

    clock.set(MON_0200);
    KairosScheduler second = instance(clock, List.of("h"));
    second.open();
    second.runDue();

    assertThat(runs).extracting(Run::key).containsExactly("a", "c");
    assertThat(second.jobs()).extracting(JobInfo::key).containsExactly("a", "c");
    assertThat(bRow()).isEqualTo(before);
  }

  private Map<String, Object> bRow() {
    return new LinkedHashMap<>(
        database().row("SELECT * FROM " + jobs() + " WHERE job_key = 'b'").orElseThrow());
  }

  /**
   * A job whose handler this instance lacks is not fired, not deleted, and warned about once,
   * however many windows are loaded.
   */
  @Test
  void unknownHandler_notFiredNotDeleted_warnedOnce() {
    ManualClock clock = new ManualClock(MON_0100);
    KairosScheduler first = instance(clock, List.of("known", "ghost"));
    first.open();
    first.schedule(
        JobSpec.named("k")
            .handler("known")
            .fixedRate(Duration.ofMinutes(1))
            .startAt(MON_0100.plusSeconds(60)));
    first.schedule(
        JobSpec.named("g")
            .handler("ghost")
            .fixedRate(Duration.ofMinutes(1))
            .startAt(MON_0100.plusSeconds(60)));
    first.close();

    try (StderrCapture log = new StderrCapture()) {
      KairosScheduler second = instance(clock, List.of("known"), Duration.ofMinutes(2));
      second.start();
      for (int i = 1; i <= 5; i++) {
        clock.advance(Duration.ofMinutes(1));
        int expected = i;
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() >= expected);
      }
      second.close();

      assertThat(runs).extracting(Run::key).containsOnly("k");
      assertThat(log.lines("handler 'ghost' is not registered")).isEqualTo(1);
    }
    KairosScheduler third = instance(clock, List.of("known", "ghost"));
    JobInfo g = third.job("g").orElseThrow();
    assertThat(g.runCount()).isZero();
    assertThat(g.state()).isEqualTo(JobState.SCHEDULED);
  }
}
