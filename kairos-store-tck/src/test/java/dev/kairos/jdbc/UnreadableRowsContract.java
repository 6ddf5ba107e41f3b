package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.UnreadableJob;
import dev.kairos.UnreadableJobException;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rows edited by hand into something {@code schedule()} would refuse (issue #10, item 6): the
 * engine over a database store never fires them, never rewrites them, and lists them in {@code
 * unreadable()}; keys, handler names and data the databases cannot all hold are refused at the API.
 */
abstract class UnreadableRowsContract {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");
  static final Duration MINUTE = Duration.ofMinutes(1);

  private final String prefix = JdbcStoreContract.nextPrefix();
  private final List<KairosScheduler> schedulers = new ArrayList<>();
  final List<String> runs = Collections.synchronizedList(new ArrayList<>());

  protected abstract TestDatabase database();

  @AfterEach
  void closeSchedulers() {
    schedulers.forEach(KairosScheduler::close);
  }

  KairosScheduler instance(ManualClock clock) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(database().builder().tablePrefix(prefix).build())
                .clock(clock)
                .lookAhead(Duration.ofDays(1))
                .defaultZone(ZoneOffset.UTC)
                .handler("h", ctx -> runs.add(ctx.key() + "@" + ctx.scheduledFireTime())));
    schedulers.add(s);
    return s;
  }

  String jobs() {
    return prefix + "jobs";
  }

  Map<String, Object> rowOf(String key) {
    return database()
        .row("SELECT * FROM " + jobs() + " WHERE job_key = '" + key + "'")
        .orElseThrow();
  }

  /** Jobs "good" and "bad", every minute from T0 + 1 min, in a scheduler that is then closed. */
  void scheduleGoodAndBad(Misfire misfire) {
    ManualClock clock = new ManualClock(T0);
    KairosScheduler first = instance(clock);
    first.open();
    for (String key : List.of("good", "bad")) {
      first.schedule(
          JobSpec.named(key)
              .handler("h")
              .fixedRate(MINUTE)
              .startAt(T0.plus(MINUTE))
              .misfire(misfire));
    }
    first.close();
  }

  /**
   * Each edit makes the row break one rule: after a restart, the other job runs, the edited one
   * does not, its row is unchanged, {@code job()} names the problem and {@code unreadable()} lists
   * it.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "fixed_period = 'PT0S'                                  | fixed-rate period must be positive: PT0S",
        "fixed_period = 'PT-1M'                                 | fixed-rate period must be positive: PT-1M",
        "misfire_threshold = 'PT-1S'                            | misfire threshold must not be negative: PT-1S",
        "misfire_kind = 'CATCH_UP', misfire_max = -1            | catchUp(max) needs max >= 1: -1",
        "misfire_kind = 'CATCH_UP', misfire_max = 0             | catchUp(max) needs max >= 1: 0",
        "state = 'COMPLETE'                                     | a COMPLETE job has a due time",
        "due_kind = 'RETRY', attempt = 2, last_scheduled_fire_time = NULL | a retry is due at 2026-01-05T02:01:00Z without the fire time it retries",
        "attempt = 0                                            | attempt must be at least 1: 0",
        "due_kind = 'TIMETABLE', next_fire_time = NULL          | a timetable fire is due at 2026-01-05T02:01:00Z without a next fire time",
        "retry_max_attempts = 0, retry_initial_delay = 'PT1S'   | retry max attempts must be at least 1: 0",
        "handler = ''                                           | handler name is null or blank",
        "misfire_kind = 'CATCH_UP', misfire_max = 3, catch_up_window = 'PT0S'  | catch-up window must be positive: PT0S",
        "misfire_kind = 'CATCH_UP', misfire_max = 2147483647, catch_up_window = 'PT-1H' | catch-up window must be positive: PT-1H",
        "catch_up_window = 'PT1H'                               | catch_up_window PT1H on misfire_kind 'FIRE_ONCE'",
        "catch_up_window = 'an hour'                            | catch_up_window 'an hour' is not an ISO-8601 duration",
        "jitter = 'PT-1S'                                       | jitter must not be negative: PT-1S",
        "jitter = 'PT1M'                                        | jitter PT1M must be shorter than the fixed-rate period PT1M",
        "overlap_policy = 'SOMETIMES'                           | unknown overlap_policy 'SOMETIMES'",
        "calendar_policy = 'SKIP'                               | calendar_policy SKIP with calendar_name null: both or neither",
        "calendar_name = 'desk'                                 | calendar_policy null with calendar_name desk: both or neither",
        "calendar_name = 'desk', calendar_policy = 'SOMETIMES'  | unknown calendar_policy 'SOMETIMES'",
        "calendar_name = '', calendar_policy = 'SKIP'           | calendar name is null or blank",
        "fixed_period = 'PT0.0001S'                             | fixed-rate period must be at least 1 ms: PT0.0001S",
        "state = 'PAUSED'                                       | a PAUSED job has a due time: 2026-01-05T02:01:00Z (TIMETABLE)",
        "due_kind = 'RETRY', last_scheduled_fire_time = due_time | a retry is due at 2026-01-05T02:01:00Z as attempt 1, not 2 or more",
        "run_count = -7                                         | run count must not be negative: -7",
        "failure_count = 5                                      | failure count 5 is more than the run count 0",
        "version = -1                                           | version must not be negative: -1",
      })
  void editedRow_neverFired_neverRewritten_listed(String edit, String problem) {
    scheduleGoodAndBad(Misfire.fireOnce());

    KairosScheduler s = editRestartAndRun(edit, problem);

    assertThat(s.jobs()).extracting(j -> j.spec().key()).containsExactly("good");
    assertThatThrownBy(() -> s.job("bad"))
        .isInstanceOf(UnreadableJobException.class)
        .hasMessageContaining("job 'bad'")
        .hasMessageContaining(problem);
  }

  /**
   * A cron row only the engine judges (an expression that does not parse, or never fires, no time
   * zone, an attempt beyond the retry policy: the store reads them back as written) is never fired,
   * never rewritten (no start mark either) and listed naming the job.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "cron_expression = '99 * * * * ?'  | '99 * * * * ?'",
        "cron_expression = 'every tuesday' | 'every tuesday'",
        "cron_expression = '0 0 0 30 2 ?'  | never fires",
        "cron_zone = NULL                  | has no time zone",
        "attempt = 2                       | attempt 2 is beyond the retry policy's 1 attempt(s)",
      })
  void editedCronRow_neverFired_neverRewritten_listed(String edit, String problem) {
    ManualClock first = new ManualClock(T0);
    KairosScheduler writer = instance(first);
    writer.open();
    writer.schedule(JobSpec.named("good").handler("h").fixedRate(MINUTE).startAt(T0.plus(MINUTE)));
    writer.schedule(JobSpec.named("bad").handler("h").cron("0 * * * * ?"));
    writer.close();

    editRestartAndRun(edit, problem);
  }

  /**
   * Applies {@code edit} to job "bad"'s row, starts a scheduler over the tables and runs what is
   * due 3 minutes on; checks that only "good" ran, that the row is as edited and that {@code
   * unreadable()} lists "bad" alone, with {@code problem}. Returns the scheduler.
   */
  private KairosScheduler editRestartAndRun(String edit, String problem) {
    database().execute("UPDATE " + jobs() + " SET " + edit + " WHERE job_key = 'bad'");
    Map<String, Object> before = rowOf("bad");

    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();
    clock.set(T0.plus(MINUTE.multipliedBy(3)));
    s.runDue();

    assertThat(runs).isNotEmpty().allMatch(r -> r.startsWith("good@"));
    assertThat(rowOf("bad")).isEqualTo(before);
    assertThat(s.unreadable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.key()).isEqualTo("bad");
              assertThat(u.reason()).contains(problem);
            });
    return s;
  }

  /**
   * A job row attached to a calendar that is not stored, or whose stored rows map to no calendar
   * (an unknown zone), is never fired and is listed naming the calendar.
   */
  @ParameterizedTest
  @CsvSource({"gone, false", "desk, true"})
  void missingOrBadCalendar_neverFired_listedNamingIt(String calendar, boolean badRow) {
    scheduleGoodAndBad(Misfire.fireOnce());
    if (badRow) {
      database()
          .execute(
              "INSERT INTO "
                  + prefix
                  + "calendars (calendar_name, zone_id, monday, tuesday, wednesday, thursday,"
                  + " friday, saturday, sunday, window_from, window_until, last_business_day)"
                  + " VALUES ('desk', 'Mars/Olympus', TRUE, TRUE, TRUE, TRUE, TRUE, TRUE, TRUE,"
                  + " NULL, NULL, FALSE)");
    }
    database()
        .execute(
            "UPDATE "
                + jobs()
                + " SET calendar_name = '"
                + calendar
                + "', calendar_policy = 'SKIP' WHERE job_key = 'bad'");

    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();
    clock.set(T0.plus(MINUTE.multipliedBy(3)));
    s.runDue();

    assertThat(runs).isNotEmpty().allMatch(r -> r.startsWith("good@"));
    assertThat(s.calendars()).isEmpty();
    assertThat(s.unreadable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.key()).isEqualTo("bad");
              assertThat(u.reason()).contains("calendar '" + calendar + "' does not exist");
            });
  }

  /**
   * A next fire time in year 1 under {@code catchUp()} would replay every minute since; the row is
   * refused (more than {@code JobRules.MAX_CATCH_UP} behind) instead, and left as it is.
   */
  @Test
  void catchUpFromYearOne_refused_notReplayed_notRewritten() {
    scheduleGoodAndBad(Misfire.catchUp());
    long yearOne = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond();
    database()
        .execute(
            "UPDATE "
                + jobs()
                + " SET next_fire_time = "
                + yearOne
                + ", due_time = "
                + yearOne
                + " WHERE job_key = 'bad'");
    Map<String, Object> before = rowOf("bad");

    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();
    clock.set(T0.plus(MINUTE.multipliedBy(3)));
    s.runDue();

    assertThat(runs)
        .containsExactly(
            "good@" + T0.plus(MINUTE),
            "good@" + T0.plus(MINUTE.multipliedBy(2)),
            "good@" + T0.plus(MINUTE.multipliedBy(3)));
    assertThat(rowOf("bad")).isEqualTo(before);
    assertThat(s.unreadable())
        .extracting(UnreadableJob::key, u -> u.reason().contains("under catchUp()"))
        .containsExactly(org.assertj.core.groups.Tuple.tuple("bad", true));

    long fixed = T0.plus(MINUTE.multipliedBy(4)).getEpochSecond();
    database()
        .execute(
            "UPDATE "
                + jobs()
                + " SET next_fire_time = "
                + fixed
                + ", due_time = "
                + fixed
                + " WHERE job_key = 'bad'");
    assertThat(s.unreadable()).isEmpty();
  }

  /**
   * With a catch-up window the replay is bounded, so a next fire time in year 1 is not refused: the
   * job makes up only the fires inside the window and drops the two thousand years before it.
   */
  @Test
  void catchUpWithinFromYearOne_readable_replaysOnlyTheWindow() {
    scheduleGoodAndBad(Misfire.catchUp().within(Duration.ofMinutes(2)));
    long yearOne = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond();
    database()
        .execute(
            "UPDATE "
                + jobs()
                + " SET next_fire_time = "
                + yearOne
                + ", due_time = "
                + yearOne
                + " WHERE job_key = 'bad'");

    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();
    clock.set(T0.plus(MINUTE.multipliedBy(3)));
    s.runDue();

    assertThat(s.unreadable()).isEmpty();
    List<String> expected = new ArrayList<>();
    for (String key : List.of("good", "bad")) {
      for (int m = 1; m <= 3; m++) {
        expected.add(key + "@" + T0.plus(MINUTE.multipliedBy(m)));
      }
    }
    assertThat(runs).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(s.job("bad").orElseThrow().nextFireTime())
        .isEqualTo(T0.plus(MINUTE.multipliedBy(4)));
  }

  /** A catch-up of less than the limit is a normal downtime, replayed. */
  @Test
  void catchUpOfADay_replayed() {
    scheduleGoodAndBad(Misfire.catchUp());
    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();
    clock.set(T0.plus(Duration.ofHours(1)));
    s.runDue();

    assertThat(runs).hasSize(120);
    assertThat(s.unreadable()).isEmpty();
  }

  /** A completed one-shot that is triggered is COMPLETE and due: readable, and it runs. */
  @Test
  void completedOneShot_triggered_readableAndRuns() {
    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();
    s.schedule(JobSpec.named("once").handler("h").at(T0.plus(MINUTE)));
    clock.set(T0.plus(MINUTE));
    s.runDue();
    assertThat(s.job("once").orElseThrow().state()).isEqualTo(dev.kairos.JobState.COMPLETE);

    s.triggerNow("once");
    s.close();
    KairosScheduler restarted = instance(clock);
    restarted.open();
    restarted.runDue();

    assertThat(runs).containsExactly("once@" + T0.plus(MINUTE), "once@" + T0.plus(MINUTE));
    assertThat(restarted.unreadable()).isEmpty();
  }

  /** Scheduling the key again replaces the refused row and clears it from the list. */
  @Test
  void scheduleAgain_replacesRefusedRow() {
    scheduleGoodAndBad(Misfire.fireOnce());
    database().execute("UPDATE " + jobs() + " SET fixed_period = 'PT0S' WHERE job_key = 'bad'");
    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();
    assertThat(s.unreadable()).extracting(UnreadableJob::key).containsExactly("bad");

    s.schedule(JobSpec.named("bad").handler("h").fixedRate(MINUTE));

    assertThat(s.unreadable()).isEmpty();
    assertThat(s.job("bad")).isPresent();
  }

  /** A key holding a control character, stored behind the API's back, is refused as a row. */
  @Test
  void keyWithControlCharacterInRow_refused() {
    scheduleGoodAndBad(Misfire.fireOnce());
    database()
        .execute("UPDATE " + jobs() + " SET job_key = CONCAT('bad', CHR(1)) WHERE job_key = 'bad'");

    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();
    clock.set(T0.plus(MINUTE));
    s.runDue();

    assertThat(runs).containsExactly("good@" + T0.plus(MINUTE));
    assertThat(s.unreadable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.key()).isEqualTo("bad\u0001");
              assertThat(u.reason()).contains("key contains a control character (\\u0001)");
            });
  }

  /** What not every database can hold is refused by schedule(), naming the key. */
  @ParameterizedTest
  @CsvSource({"0000", "0001", "000a", "001f", "007f", "0085"})
  void schedule_keyWithControlCharacter_refusedNamingKey(String hex) {
    char c = (char) Integer.parseInt(hex, 16);
    KairosScheduler s = instance(new ManualClock(T0));
    s.open();

    assertThatThrownBy(
            () -> s.schedule(JobSpec.named("a" + c + "b").handler("h").fixedRate(MINUTE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "job 'a\\u" + hex + "b': key contains a control character (\\u" + hex + ") at index 1");
    assertThat(s.jobs()).isEmpty();
  }

  @Test
  void schedule_unpairedSurrogateOrNulInData_refused_emojiKeyAccepted() {
    KairosScheduler s = instance(new ManualClock(T0));
    s.open();

    assertThatThrownBy(() -> s.schedule(JobSpec.named("x\ud800").handler("h").fixedRate(MINUTE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("job 'x\\ud800': key contains an unpaired surrogate");
    assertThatThrownBy(
            () -> s.schedule(JobSpec.named("d").handler("h").data("a\0b").fixedRate(MINUTE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("job 'd': data contains a NUL character");

    s.schedule(JobSpec.named("clock-\u23f0-\ud83d\ude00").handler("h").fixedRate(MINUTE));
    assertThat(s.job("clock-\u23f0-\ud83d\ude00")).isPresent();
  }
}
