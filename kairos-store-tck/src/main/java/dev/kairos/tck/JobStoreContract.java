package dev.kairos.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.Retry;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.Schedule;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.spi.BackfillSlot;
import dev.kairos.spi.ConcurrentRun;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.RunStats;
import dev.kairos.spi.ScheduleState;
import dev.kairos.spi.StartMark;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The semantics every {@link JobStore} must have, stated once and run against each store
 * (db-scheduler's compatibility-test idea): the in-memory reference, H2 and PostgreSQL.
 */
public abstract class JobStoreContract {
  /** The due time of the jobs the tests create. */
  public static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");

  /** The store under test: new, empty and open. */
  protected JobStore store;

  private final List<JobStore> opened = new ArrayList<>();

  /**
   * A new, empty store, not yet opened.
   *
   * @return the store
   * @param historyPerJob runs kept per job
   * @param keepCompleted whether completed one-shot jobs are kept
   */
  protected abstract JobStore newStore(int historyPerJob, boolean keepCompleted);

  @BeforeEach
  void openStore() {
    store = open(100, true);
  }

  @AfterEach
  void closeStores() {
    opened.forEach(JobStore::close);
  }

  /**
   * A new store, opened, closed after the test.
   *
   * @param historyPerJob runs kept per job
   * @param keepCompleted whether completed one-shot jobs are kept
   * @return the opened store
   */
  protected JobStore open(int historyPerJob, boolean keepCompleted) {
    JobStore s = newStore(historyPerJob, keepCompleted);
    opened.add(s);
    s.open();
    return s;
  }

  /**
   * A one-minute fixed-rate job with handler "h".
   *
   * @param key the job key
   * @return the spec
   */
  public static JobSpec spec(String key) {
    return JobSpec.named(key).handler("h").fixedRate(Duration.ofMinutes(1));
  }

  /**
   * A new record of {@link #spec(String)}, due at {@code due}.
   *
   * @param key the job key
   * @param due the due time
   * @return the record
   */
  public static JobRecord fresh(String key, Instant due) {
    return JobRecord.fresh(spec(key), due);
  }

  /**
   * A successful run of r's due fire that moves it one minute on.
   *
   * @param r the record whose fire ran
   * @return the write-back
   */
  public static RunResult success(JobRecord r) {
    Instant fire = r.dueTime();
    Instant next = fire.plusSeconds(60);
    return new RunResult(
        new RunRecord(
            r.key(),
            fire,
            fire.plusMillis(5),
            fire.plusMillis(25),
            RunOutcome.SUCCESS,
            null,
            1,
            "node-1"),
        r.version(),
        new ScheduleState(JobState.SCHEDULED, next, next, FireKind.TIMETABLE, 1));
  }

  /**
   * A failed run of r's due fire that moves it one minute on.
   *
   * @param r the record whose fire ran
   * @param error the failure message
   * @return the write-back
   */
  public static RunResult failure(JobRecord r, String error) {
    RunResult s = success(r);
    return new RunResult(
        new RunRecord(
            s.key(),
            s.scheduledFireTime(),
            s.start(),
            s.end(),
            RunOutcome.FAILURE,
            error,
            s.attempt(),
            s.instance()),
        s.expectedVersion(),
        new ScheduleState(
            JobState.SCHEDULED, s.nextFireTime(), s.nextFireTime(), FireKind.RETRY, 2));
  }

  private JobRecord stored(String key) {
    return store.find(key).orElseThrow();
  }

  // ---- upsert --------------------------------------------------------------------------------

  @Test
  void upsert_newKey_createsAtAFirstVersionAboveAnyEarlierJobsOfTheKey() {
    Upsert u = store.upsert(fresh("a", T0));

    assertThat(u.change()).isEqualTo(Upsert.Change.CREATED);
    assertThat(u.record()).isEqualTo(fresh("a", T0).withVersion(u.record().version()));
    assertThat(u.record().version()).isPositive();
    assertThat(stored("a")).isEqualTo(u.record());

    // Deleted and created again: the new job's versions never meet the old job's, so a late
    // write-back of the old job's run cannot pass for current (issue #10, finding 1).
    JobRecord old = store.runFinished(success(u.record())).orElseThrow();
    store.delete("a");
    JobRecord again = store.upsert(fresh("a", T0)).record();
    assertThat(again.version()).isGreaterThan(old.version());
  }

  @Test
  void upsert_equalDefinition_leavesStateAndStatistics() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    JobRecord ran = store.runFinished(success(r)).orElseThrow();

    Upsert again = store.upsert(fresh("a", T0.plusSeconds(3600)));

    assertThat(again.change()).isEqualTo(Upsert.Change.UNCHANGED);
    assertThat(again.record()).isEqualTo(ran);
    assertThat(stored("a")).isEqualTo(ran);
  }

  @Test
  void upsert_changedDefinition_replacesDefinitionAndStateKeepsStatistics() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    JobRecord ran = store.runFinished(success(r)).orElseThrow();
    JobSpec changed = spec("a").fixedDelay(Duration.ofHours(2)).data("{\"v\":2}");

    Upsert u = store.upsert(JobRecord.fresh(changed, T0.plusSeconds(7200)));

    assertThat(u.change()).isEqualTo(Upsert.Change.UPDATED);
    JobRecord expected =
        new JobRecord(
            changed,
            new ScheduleState(
                JobState.SCHEDULED,
                T0.plusSeconds(7200),
                T0.plusSeconds(7200),
                FireKind.TIMETABLE,
                1),
            new RunStats(
                ran.lastScheduledFireTime(),
                ran.lastStart(),
                ran.lastEnd(),
                ran.lastOutcome(),
                ran.lastError(),
                1,
                0),
            ran.version() + 1);
    assertThat(u.record()).isEqualTo(expected);
    assertThat(stored("a")).isEqualTo(expected);
  }

  @Test
  void upsert_neverDue_createsCompleteJobWithoutDueTime() {
    store.upsert(fresh("a", null));

    assertThat(stored("a").state()).isEqualTo(JobState.COMPLETE);
    assertThat(store.due(null, Instant.MAX, 10)).isEmpty();
  }

  // ---- batched runs ----------------------------------------------------------------------------

  @Test
  void runsFinished_answersInTheOrderGiven_asOneByOneWouldHave() {
    JobStore twin = open(100, true);
    List<RunResult> batch = new ArrayList<>();
    List<Optional<JobRecord>> oneByOne = new ArrayList<>();
    for (String key : List.of("c", "a", "b")) {
      JobRecord r = store.upsert(fresh(key, T0)).record();
      JobRecord t = twin.upsert(fresh(key, T0)).record();
      assertThat(t).isEqualTo(r.withVersion(t.version()));
      RunResult x = key.equals("b") ? failure(r, "boom") : success(r);
      batch.add(x);
      RunResult y = key.equals("b") ? failure(t, "boom") : success(t);
      oneByOne.add(twin.runFinished(y).map(z -> z.withVersion(0)));
    }
    List<Optional<JobRecord>> written = store.runsFinished(batch);

    assertThat(written).extracting(o -> o.map(z -> z.withVersion(0))).isEqualTo(oneByOne);
    for (int i = 0; i < batch.size(); i++) {
      String key = batch.get(i).key();
      assertThat(written.get(i)).contains(stored(key));
      assertThat(store.history(key, 10))
          .extracting(RunRecord::outcome)
          .containsExactly(key.equals("b") ? RunOutcome.FAILURE : RunOutcome.SUCCESS);
    }
    if (store.batchesRuns()) { // its engine retries a failed batch: a repeat must be harmless
      // written again (an acknowledgement lost): recognised as done, nothing appended
      assertThat(store.runsFinished(batch)).isEqualTo(written);
      assertThat(store.history("a", 10)).hasSize(1);
    }
  }

  @Test
  void runsFinished_staleAndGoneJobs_keepTheChangeOrAnswerEmpty() {
    JobRecord a = store.upsert(fresh("a", T0)).record();
    JobRecord b = store.upsert(fresh("b", T0)).record();
    JobRecord paused =
        store
            .replace(
                a.withSchedule(JobState.PAUSED, a.nextFireTime(), null, FireKind.TIMETABLE, 1),
                a.version())
            .orElseThrow();
    store.delete("b");

    List<Optional<JobRecord>> written = store.runsFinished(List.of(success(a), success(b)));

    assertThat(written.get(0)).contains(stored("a"));
    assertThat(stored("a").state()).isEqualTo(JobState.PAUSED);
    assertThat(stored("a").runCount()).isEqualTo(paused.runCount() + 1);
    assertThat(written.get(1)).isEmpty();
    assertThat(store.find("b")).isEmpty();
  }

  @Test
  void runsStarted_marksOnlyScheduledRowsAtTheirVersion_runsNotStartedUndoes() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        store.batchesRuns(), "this store does not batch runs: marks are its runStarted");
    JobRecord a = store.upsert(fresh("a", T0)).record();
    JobRecord b = store.upsert(fresh("b", T0)).record();
    JobRecord c = store.upsert(fresh("c", T0)).record();
    store.replace(
        c.withSchedule(JobState.PAUSED, c.nextFireTime(), null, FireKind.TIMETABLE, 1),
        c.version());
    JobRecord before = stored("a");

    store.runsStarted(
        List.of(
            new StartMark("a", a.version()),
            new StartMark("b", b.version() + 1), // not the stored version: left alone
            new StartMark("c", c.version() + 1))); // paused: left alone

    assertThat(stored("a").state()).isEqualTo(JobState.RUNNING);
    assertThat(stored("a").version()).isEqualTo(before.version());
    assertThat(stored("a").lastStart()).isEqualTo(before.lastStart());
    assertThat(stored("b").state()).isEqualTo(JobState.SCHEDULED);
    assertThat(stored("c").state()).isEqualTo(JobState.PAUSED);

    store.runsNotStarted(
        List.of(new StartMark("a", a.version()), new StartMark("c", c.version() + 1)));

    assertThat(stored("a")).isEqualTo(before);
    assertThat(stored("c").state()).isEqualTo(JobState.PAUSED);
  }

  // ---- find, findAll ---------------------------------------------------------------------------

  @Test
  void find_unknownKey_empty() {
    assertThat(store.find("nope")).isEmpty();
  }

  @Test
  void findAll_orderedByKey() {
    for (String k : List.of("b", "c", "a", "B")) {
      store.upsert(fresh(k, T0));
    }

    assertThat(store.findAll()).extracting(JobRecord::key).containsExactly("B", "a", "b", "c");
  }

  // ---- replace -------------------------------------------------------------------------------

  @Test
  void replace_matchingVersion_replacesAndIncrementsVersionKeepingStatistics() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    JobRecord ran = store.runFinished(success(r)).orElseThrow();
    JobRecord paused =
        ran.withSchedule(JobState.PAUSED, ran.nextFireTime(), null, FireKind.TIMETABLE, 1);

    Optional<JobRecord> result = store.replace(paused, ran.version());

    assertThat(result).contains(paused.withVersion(ran.version() + 1));
    assertThat(stored("a")).isEqualTo(paused.withVersion(ran.version() + 1));
  }

  @Test
  void replace_statisticsOfArgument_ignored() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    JobRecord ran = store.runFinished(success(r)).orElseThrow();
    JobRecord withoutStats = fresh("a", T0.plusSeconds(600)).withVersion(ran.version());

    JobRecord result = store.replace(withoutStats, ran.version()).orElseThrow();

    assertThat(result.runCount()).isEqualTo(1);
    assertThat(result.lastOutcome()).isEqualTo(RunOutcome.SUCCESS);
    assertThat(result.dueTime()).isEqualTo(T0.plusSeconds(600));
  }

  @Test
  void replace_staleVersion_emptyAndUnchanged() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    JobRecord moved =
        r.withSchedule(
            JobState.SCHEDULED, T0.plusSeconds(1), T0.plusSeconds(1), FireKind.TIMETABLE, 1);

    assertThat(store.replace(moved, r.version() + 1)).isEmpty();
    assertThat(stored("a")).isEqualTo(r);
  }

  @Test
  void replace_unknownKey_empty() {
    assertThat(store.replace(fresh("nope", T0), 0)).isEmpty();
    assertThat(store.find("nope")).isEmpty();
  }

  // ---- delete --------------------------------------------------------------------------------

  @Test
  void delete_existing_removesJobDueEntryAndHistory() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.runFinished(success(r));

    assertThat(store.delete("a")).isTrue();

    assertThat(store.find("a")).isEmpty();
    assertThat(store.due(null, Instant.MAX, 10)).isEmpty();
    assertThat(store.history("a", 10)).isEmpty();
    store.upsert(fresh("a", T0));
    assertThat(store.history("a", 10)).isEmpty();
  }

  @Test
  void delete_unknown_false() {
    assertThat(store.delete("nope")).isFalse();
  }

  // ---- due -----------------------------------------------------------------------------------

  @Test
  void due_orderedByDueTimeThenKey() {
    store.upsert(fresh("c", T0));
    store.upsert(fresh("a", T0.plusSeconds(1)));
    store.upsert(fresh("b", T0));
    store.upsert(fresh("d", T0.minusSeconds(1)));

    assertThat(store.due(null, Instant.MAX, 10))
        .extracting(JobRecord::key)
        .containsExactly("d", "b", "c", "a");
  }

  @Test
  void due_beforeIsExclusiveAndJobsWithoutDueTimeAreLeftOut() {
    store.upsert(fresh("early", T0.minusNanos(1)));
    store.upsert(fresh("at", T0));
    store.upsert(fresh("never", null));
    JobRecord p = store.upsert(fresh("paused", T0.minusSeconds(5))).record();
    store.replace(
        p.withSchedule(JobState.PAUSED, p.nextFireTime(), null, FireKind.TIMETABLE, 1),
        p.version());

    assertThat(store.due(null, T0, 10)).extracting(JobRecord::key).containsExactly("early");
  }

  @Test
  void due_afterCursor_isStrictAndBreaksTiesByKey() {
    for (String k : List.of("a", "b", "c")) {
      store.upsert(fresh(k, T0));
    }
    store.upsert(fresh("a2", T0.plusSeconds(1)));

    assertThat(store.due(new WindowCursor(T0, "b"), Instant.MAX, 10))
        .extracting(JobRecord::key)
        .containsExactly("c", "a2");
    assertThat(store.due(new WindowCursor(T0, "c"), Instant.MAX, 10))
        .extracting(JobRecord::key)
        .containsExactly("a2");
  }

  @Test
  void due_limit_returnsFirstRowsAndPagesThroughAll() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      String k = String.format("k%02d", i);
      keys.add(k);
      store.upsert(fresh(k, T0.plusSeconds(i / 3)));
    }

    List<String> paged = new ArrayList<>();
    WindowCursor cursor = null;
    for (List<JobRecord> page; !(page = store.due(cursor, Instant.MAX, 4)).isEmpty(); ) {
      assertThat(page.size()).isLessThanOrEqualTo(4);
      page.forEach(r -> paged.add(r.key()));
      cursor = page.get(page.size() - 1).cursor();
    }

    assertThat(store.due(null, Instant.MAX, 4)).hasSize(4);
    assertThat(paged).isEqualTo(keys);
  }

  @Test
  void due_afterReplace_followsNewDueTime() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.upsert(fresh("b", T0.plusSeconds(10)));
    store.replace(
        r.withSchedule(
            JobState.SCHEDULED, T0.plusSeconds(20), T0.plusSeconds(20), FireKind.TIMETABLE, 1),
        r.version());

    assertThat(store.due(null, Instant.MAX, 10))
        .extracting(JobRecord::key)
        .containsExactly("b", "a");
    assertThat(store.due(null, T0.plusSeconds(15), 10))
        .extracting(JobRecord::key)
        .containsExactly("b");
  }

  // ---- runStarted / runFinished --------------------------------------------------------------

  @Test
  void runStarted_scheduled_becomesRunningWithSameVersion() {
    JobRecord r = store.upsert(fresh("a", T0)).record();

    store.runStarted("a", T0, T0.plusMillis(3), "node-1");

    JobRecord s = stored("a");
    assertThat(s.state()).isEqualTo(JobState.RUNNING);
    assertThat(s.lastStart()).isEqualTo(T0.plusMillis(3));
    assertThat(s.version()).isEqualTo(r.version());
    assertThat(s.dueTime()).isEqualTo(T0);
  }

  @Test
  void runStarted_paused_staysPausedButRecordsStart() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.replace(r.withSchedule(JobState.PAUSED, T0, null, FireKind.TIMETABLE, 1), r.version());

    store.runStarted("a", T0, T0.plusMillis(3), "node-1");

    assertThat(stored("a").state()).isEqualTo(JobState.PAUSED);
    assertThat(stored("a").lastStart()).isEqualTo(T0.plusMillis(3));
  }

  @Test
  void runStarted_unknownKey_doesNothing() {
    store.runStarted("nope", T0, T0, "node-1");

    assertThat(store.find("nope")).isEmpty();
  }

  @Test
  void runFinished_currentVersion_appliesScheduleStatisticsAndIncrementsVersion() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.runStarted("a", T0, T0.plusMillis(5), "node-1");
    RunResult x = success(r);

    JobRecord after = store.runFinished(x).orElseThrow();

    JobRecord expected =
        new JobRecord(
            r.spec(),
            new ScheduleState(
                JobState.SCHEDULED, x.nextFireTime(), x.dueTime(), FireKind.TIMETABLE, 1),
            new RunStats(x.scheduledFireTime(), x.start(), x.end(), RunOutcome.SUCCESS, null, 1, 0),
            r.version() + 1);
    assertThat(after).isEqualTo(expected);
    assertThat(stored("a")).isEqualTo(expected);
  }

  @Test
  void runFinished_staleVersion_keepsNewScheduleAndTurnsRunningBackToScheduled() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    JobRecord changed =
        store.upsert(JobRecord.fresh(spec("a").data("new"), T0.plusSeconds(99))).record();
    store.runStarted("a", T0, T0.plusMillis(5), "node-1");

    JobRecord after = store.runFinished(success(r)).orElseThrow();

    assertThat(after.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(after.spec()).isEqualTo(changed.spec());
    assertThat(after.dueTime()).isEqualTo(T0.plusSeconds(99));
    assertThat(after.nextFireTime()).isEqualTo(T0.plusSeconds(99));
    // Every write-back increments the version (RunResult.applyTo): a write made against the
    // change's version, such as a start mark, cannot land over it.
    assertThat(after.version()).isEqualTo(changed.version() + 1);
    assertThat(after.runCount()).isEqualTo(1);
    assertThat(after.lastScheduledFireTime()).isEqualTo(T0);
    assertThat(stored("a")).isEqualTo(after);
  }

  /**
   * Triggered (through another instance) during the run: the trigger stays due, and the timetable
   * still moves past the fire that ran, so that fire does not run again after the trigger.
   */
  @Test
  void runFinished_staleVersion_triggeredMeanwhile_keepsTriggerAndAdvancesTimetable() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.runStarted("a", T0, T0.plusMillis(5), "node-1");
    JobRecord running = stored("a");
    JobRecord triggered =
        store
            .replace(
                running.withSchedule(
                    JobState.SCHEDULED,
                    running.nextFireTime(),
                    T0.plusMillis(10),
                    FireKind.TRIGGER,
                    1),
                running.version())
            .orElseThrow();

    JobRecord after = store.runFinished(success(r)).orElseThrow();

    assertThat(after.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(after.dueKind()).isEqualTo(FireKind.TRIGGER);
    assertThat(after.dueTime()).isEqualTo(T0.plusMillis(10));
    assertThat(after.nextFireTime()).isEqualTo(T0.plusSeconds(60));
    assertThat(after.version())
        .as("newer than the trigger's record")
        .isEqualTo(triggered.version() + 1);
    assertThat(stored("a")).isEqualTo(after);
  }

  @Test
  void runFinished_staleVersion_pausedMeanwhileStaysPaused() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.runStarted("a", T0, T0.plusMillis(5), "node-1");
    JobRecord running = stored("a");
    JobRecord paused =
        store
            .replace(
                running.withSchedule(
                    JobState.PAUSED, running.nextFireTime(), null, FireKind.TIMETABLE, 1),
                running.version())
            .orElseThrow();

    JobRecord after = store.runFinished(success(r)).orElseThrow();

    assertThat(after.state()).isEqualTo(JobState.PAUSED);
    assertThat(after.dueTime()).isNull();
    assertThat(after.nextFireTime())
        .as("resume continues after the fire that ran")
        .isEqualTo(T0.plusSeconds(60));
    assertThat(after.version()).isEqualTo(paused.version() + 1);
    assertThat(store.due(null, Instant.MAX, 10)).isEmpty();
  }

  /**
   * Paused and resumed during the run (issue #10, finding 1): the resumed record still points at
   * the fire that ran; the write-back moves it on, so that fire is not run again.
   */
  @Test
  void runFinished_staleVersion_pausedAndResumedMeanwhile_doesNotReArmTheFireThatRan() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.runStarted("a", T0, T0.plusMillis(5), "node-1");
    JobRecord running = stored("a");
    JobRecord paused =
        store
            .replace(
                running.withSchedule(
                    JobState.PAUSED, running.nextFireTime(), null, FireKind.TIMETABLE, 1),
                running.version())
            .orElseThrow();
    JobRecord resumed =
        store
            .replace(
                paused.withSchedule(JobState.SCHEDULED, T0, T0, FireKind.TIMETABLE, 1),
                paused.version())
            .orElseThrow();

    JobRecord after = store.runFinished(success(r)).orElseThrow();

    assertThat(after.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(after.dueTime()).isEqualTo(T0.plusSeconds(60));
    assertThat(after.nextFireTime()).isEqualTo(T0.plusSeconds(60));
    assertThat(after.version()).isEqualTo(resumed.version() + 1);
    assertThat(stored("a")).isEqualTo(after);
  }

  @Test
  void runFinished_failure_countsAndRecordsErrorThenSuccessClearsIt() {
    JobRecord r = store.upsert(fresh("a", T0)).record();

    JobRecord failed =
        store.runFinished(failure(r, "java.io.IOException: disk full")).orElseThrow();

    assertThat(failed.failureCount()).isEqualTo(1);
    assertThat(failed.lastOutcome()).isEqualTo(RunOutcome.FAILURE);
    assertThat(failed.lastError()).isEqualTo("java.io.IOException: disk full");
    assertThat(failed.dueKind()).isEqualTo(FireKind.RETRY);
    assertThat(failed.attempt()).isEqualTo(2);

    JobRecord ok = store.runFinished(success(failed)).orElseThrow();

    assertThat(ok.lastError()).isNull();
    assertThat(ok.runCount()).isEqualTo(2);
    assertThat(ok.failureCount()).isEqualTo(1);
    assertThat(stored("a")).isEqualTo(ok);
  }

  @Test
  void runFinished_unknownKey_emptyAndNoHistory() {
    JobRecord ghost = fresh("ghost", T0);

    assertThat(store.runFinished(success(ghost))).isEmpty();
    assertThat(store.history("ghost", 10)).isEmpty();
    assertThat(store.find("ghost")).isEmpty();
  }

  @Test
  void runFinished_completedOneShot_keptAsComplete() {
    JobRecord r = store.upsert(JobRecord.fresh(spec("once").at(T0), T0)).record();

    JobRecord after = store.runFinished(completed(r)).orElseThrow();

    assertThat(after.state()).isEqualTo(JobState.COMPLETE);
    assertThat(stored("once")).isEqualTo(after);
    assertThat(store.history("once", 10)).hasSize(1);
  }

  @Test
  void runFinished_completedOneShotWithoutKeepCompleted_deletedWithHistory() {
    JobStore dropping = open(100, false);
    JobRecord r = dropping.upsert(JobRecord.fresh(spec("once").at(T0), T0)).record();

    assertThat(dropping.runFinished(completed(r))).isEmpty();

    assertThat(dropping.find("once")).isEmpty();
    assertThat(dropping.history("once", 10)).isEmpty();
  }

  private static RunResult completed(JobRecord r) {
    RunResult s = success(r);
    return new RunResult(
        new RunRecord(
            s.key(),
            s.scheduledFireTime(),
            s.start(),
            s.end(),
            RunOutcome.SUCCESS,
            null,
            1,
            s.instance()),
        s.expectedVersion(),
        new ScheduleState(JobState.COMPLETE, null, null, FireKind.TIMETABLE, 1));
  }

  // ---- history -------------------------------------------------------------------------------

  @Test
  void history_newestFirstWithLimit() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    for (int i = 0; i < 5; i++) {
      r = store.runFinished(i == 2 ? failure(r, "boom") : success(r)).orElseThrow();
    }

    List<RunRecord> h = store.history("a", 3);

    assertThat(h)
        .extracting(RunRecord::scheduledFireTime)
        .containsExactly(T0.plusSeconds(240), T0.plusSeconds(180), T0.plusSeconds(120));
    assertThat(h.get(2))
        .isEqualTo(
            new RunRecord(
                "a",
                T0.plusSeconds(120),
                T0.plusSeconds(120).plusMillis(5),
                T0.plusSeconds(120).plusMillis(25),
                RunOutcome.FAILURE,
                "boom",
                1,
                "node-1"));
    assertThat(store.history("a", 0)).isEmpty();
    assertThat(store.history("a", 100)).hasSize(5);
  }

  @Test
  void history_retention_keepsNewestPerJob() {
    JobStore small = open(3, true);
    JobRecord a = small.upsert(fresh("a", T0)).record();
    JobRecord b = small.upsert(fresh("b", T0)).record();
    for (int i = 0; i < 25; i++) {
      a = small.runFinished(success(a)).orElseThrow();
    }
    b = small.runFinished(success(b)).orElseThrow();

    assertThat(small.history("a", 10))
        .extracting(RunRecord::scheduledFireTime)
        .containsExactly(T0.plusSeconds(24 * 60), T0.plusSeconds(23 * 60), T0.plusSeconds(22 * 60));
    assertThat(small.history("b", 10)).hasSize(1);
    assertThat(a.runCount()).isEqualTo(25);
  }

  @Test
  void history_none_keepsNothingButCounts() {
    JobStore none = open(0, true);
    JobRecord r = none.upsert(fresh("a", T0)).record();

    JobRecord after = none.runFinished(success(r)).orElseThrow();

    assertThat(none.history("a", 10)).isEmpty();
    assertThat(after.runCount()).isEqualTo(1);
  }

  @Test
  void history_keepsRecoveryFlagAndMissedFires() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    RunResult s = success(r);
    RunResult marked =
        new RunResult(
            new RunRecord(
                s.key(),
                s.scheduledFireTime(),
                s.start(),
                s.end(),
                s.outcome(),
                null,
                s.attempt(),
                s.instance(),
                true,
                3),
            s.expectedVersion(),
            new ScheduleState(
                s.state(), s.nextFireTime(), s.dueTime(), s.dueKind(), s.nextAttempt()),
            null);
    r = store.runFinished(marked).orElseThrow();
    store.runFinished(success(r));

    assertThat(store.history("a", 10))
        .extracting(RunRecord::recovery, RunRecord::missedFires)
        .containsExactly(tuple(false, 0), tuple(true, 3));
  }

  /**
   * The engine records what the misfire rule decided: under fire-once, one run standing for every
   * fire missed; under catch-up, one run per missed fire, each standing for one; a fire on time
   * stands for none.
   */
  @Test
  void history_misfires_recordMissedFiresEachRunStoodFor() {
    ManualClock clock = new ManualClock(T0.minusSeconds(30));
    KairosScheduler engine = engine(clock);
    try {
      engine.open();
      engine.schedule(every("once", Misfire.fireOnce()));
      engine.schedule(every("catch", Misfire.catchUp()));
      clock.set(T0.plusSeconds(4 * 60 + 30)); // fires T0 .. T0+4m missed

      engine.runDue();
      clock.set(T0.plusSeconds(5 * 60)); // the next fire, on time
      engine.runDue();

      assertThat(engine.history("once", 10))
          .extracting(RunRecord::scheduledFireTime, RunRecord::missedFires, RunRecord::recovery)
          .containsExactly(
              tuple(T0.plusSeconds(300), 0, false), tuple(T0.plusSeconds(240), 5, false));
      assertThat(engine.history("catch", 10))
          .extracting(RunRecord::missedFires)
          .containsExactly(0, 1, 1, 1, 1, 1);
    } finally {
      engine.close();
    }
  }

  /** A fire whose run was cut off (its job left RUNNING) runs again, recorded as a recovery. */
  @Test
  void history_runCutOff_recordedAsRecovery() {
    store.upsert(JobRecord.fresh(spec("r"), T0));
    store.runStarted("r", T0, T0, "crashed-instance");
    ManualClock clock = new ManualClock(T0.plusMillis(500));
    KairosScheduler engine = engine(clock);
    try {
      engine.open();
      engine.runDue();

      assertThat(engine.history("r", 10))
          .extracting(RunRecord::scheduledFireTime, RunRecord::recovery, RunRecord::missedFires)
          .containsExactly(tuple(T0, true, 0));
    } finally {
      engine.close();
    }
  }

  /** A one-minute job with handler "h" from {@link #T0}, under this misfire policy. */
  private static JobSpec every(String key, Misfire misfire) {
    return spec(key).startAt(T0).misfire(misfire);
  }

  /** The real engine over {@link #store}, driven by the step API; it closes the store. */
  private KairosScheduler engine(ManualClock clock) {
    return Engines.build(
        Kairos.builder()
            .store(store)
            .clock(clock)
            .lookAhead(Duration.ofDays(1))
            .defaultZone(ZoneOffset.UTC)
            .handler("h", ctx -> {}));
  }

  // ---- round trips ---------------------------------------------------------------------------

  /**
   * Job definitions of every kind and option, for the round-trip test.
   *
   * @return one argument, a {@code JobSpec}, per case
   */
  public static Stream<Arguments> definitions() {
    JobSpec base = JobSpec.named("job").handler("handler-1");
    ZoneId paris = ZoneId.of("Europe/Paris");
    return Stream.of(
            base.fixedRate(Duration.ofDays(1)),
            base.fixedRate(Duration.ofNanos(1_500_000_001)),
            base.fixedDelay(Duration.ofMillis(250)).initialDelay(Duration.ofSeconds(3)),
            base.fixedRate(Duration.ofHours(24)).startAt(T0.plusNanos(123_456_789)),
            base.at(T0.plusNanos(1)),
            base.after(Duration.ofMinutes(90)),
            base.cron("0 0 2 * * ?"),
            base.cron("0 0 2 * * ?", paris),
            base.cron("0 2 * * 1-5", ZoneOffset.UTC, CronSyntax.UNIX),
            base.cron("0 0 2 * * MON-FRI", ZoneId.of("UTC"), CronSyntax.SPRING),
            base.cron("0 30 2 * * ?", paris)
                .dst(new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.BOTH)),
            base.cron("0 30 2 * * ?", ZoneOffset.ofHours(5))
                .dst(DstPolicy.defaults().overlap(DstPolicy.Overlap.LAST)),
            base.fixedRate(Duration.ofMinutes(5)).misfire(Misfire.catchUp()),
            base.fixedRate(Duration.ofMinutes(5))
                .misfire(Misfire.catchUp(3).threshold(Duration.ZERO)),
            base.fixedRate(Duration.ofMinutes(5))
                .misfire(Misfire.fireOnce().threshold(Duration.ofMinutes(2))),
            base.fixedRate(Duration.ofMinutes(5)).misfire(Misfire.skip()),
            base.fixedRate(Duration.ofMinutes(5))
                .misfire(Misfire.catchUp().within(Duration.ofHours(6))),
            base.fixedRate(Duration.ofMinutes(5))
                .misfire(
                    Misfire.catchUp(3)
                        .within(Duration.ofNanos(1_500_000_001))
                        .threshold(Duration.ZERO)),
            base.fixedRate(Duration.ofMinutes(5)).jitter(Duration.ofSeconds(90)),
            base.fixedDelay(Duration.ofMillis(250)).jitter(Duration.ofNanos(1)),
            base.cron("0 0 2 * * ?", paris)
                .jitter(Duration.ofMinutes(30))
                .misfire(Misfire.catchUp().within(Duration.ofDays(2))),
            base.fixedRate(Duration.ofMinutes(5)).overlap(Overlap.skip()),
            base.cron("0 0 2 * * ?", paris).overlap(Overlap.bufferOne()),
            base.fixedRate(Duration.ofMinutes(5)).overlap(Overlap.forbid()),
            base.cron("0 */5 * * * ?", paris).overlap(Overlap.replace()),
            base.fixedRate(Duration.ofMinutes(5)).overlap(Overlap.allow(7)),
            base.cron("0 */5 * * * ?", paris).overlap(Overlap.allow(Overlap.MAX_CONCURRENT_RUNS)),
            base.fixedRate(Duration.ofMinutes(5)).retry(Retry.backoff(5, Duration.ofMillis(1500))),
            base.fixedRate(Duration.ofMinutes(5)).retry(Retry.none()),
            base.fixedRate(Duration.ofMinutes(5)).data("{\"tenant\":\"ünïcødé ✓ 𝄞\",\"n\":[1,2]}"),
            base.fixedRate(Duration.ofMinutes(5)).data(""),
            base.fixedRate(Duration.ofMinutes(5)).data("x".repeat(100_000)),
            base.cron("0 0 9 * * ?", paris).excluding("desk"),
            base.fixedRate(Duration.ofHours(1))
                .excluding("berlin-desk ✓", CalendarPolicy.NEXT_ALLOWED))
        .map(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("definitions")
  void definition_roundTripsExactly(JobSpec spec) {
    spec.calendar().ifPresent(c -> store.putCalendar(c, BusinessCalendar.in(ZoneOffset.UTC)));
    store.upsert(JobRecord.fresh(spec, T0));

    assertThat(stored("job").spec()).isEqualTo(spec);
    assertThat(store.findAll()).extracting(JobRecord::spec).containsExactly(spec);
    assertThat(store.due(null, Instant.MAX, 1)).extracting(JobRecord::spec).containsExactly(spec);
    assertThat(store.upsert(JobRecord.fresh(spec, T0)).change()).isEqualTo(Upsert.Change.UNCHANGED);
  }

  /**
   * A changed catch-up window or jitter is a changed definition: the upsert replaces it (and its
   * schedule state), as for any other part of the spec.
   */
  @Test
  void upsert_changedWindowOrJitter_isAnUpdate() {
    JobSpec base = JobSpec.named("job").handler("handler-1").fixedRate(Duration.ofMinutes(5));
    List<JobSpec> steps =
        List.of(
            base.misfire(Misfire.catchUp()),
            base.misfire(Misfire.catchUp().within(Duration.ofHours(1))),
            base.misfire(Misfire.catchUp().within(Duration.ofHours(2))),
            base.misfire(Misfire.catchUp().within(Duration.ofHours(2)))
                .jitter(Duration.ofSeconds(1)),
            base.misfire(Misfire.catchUp().within(Duration.ofHours(2)))
                .jitter(Duration.ofSeconds(2)),
            base.misfire(Misfire.catchUp()).jitter(Duration.ofSeconds(2)),
            base.misfire(Misfire.catchUp()).jitter(Duration.ofSeconds(2)).overlap(Overlap.skip()),
            base.misfire(Misfire.catchUp())
                .jitter(Duration.ofSeconds(2))
                .overlap(Overlap.bufferOne()),
            base.misfire(Misfire.catchUp()).overlap(Overlap.allow(2)),
            base.misfire(Misfire.catchUp()).overlap(Overlap.allow(3)));
    store.upsert(JobRecord.fresh(base, T0));
    for (JobSpec spec : steps) {
      assertThat(store.upsert(JobRecord.fresh(spec, T0)).change())
          .as("%s", spec)
          .isEqualTo(Upsert.Change.UPDATED);
      assertThat(stored("job").spec()).isEqualTo(spec);
    }
  }

  // ---- calendars -----------------------------------------------------------------------------

  /**
   * Calendars a store must keep exactly.
   *
   * @return one calendar per argument set
   */
  public static Stream<Arguments> calendars() {
    ZoneId berlin = ZoneId.of("Europe/Berlin");
    return Stream.of(
            BusinessCalendar.in(ZoneOffset.UTC),
            BusinessCalendar.in(berlin)
                .weekdays()
                .excluding(LocalDate.of(2026, 1, 1), LocalDate.of(2026, 12, 25)),
            BusinessCalendar.in(berlin)
                .days(DayOfWeek.SUNDAY)
                .between(LocalTime.of(8, 30), LocalTime.of(17, 45, 30, 500)),
            BusinessCalendar.in(ZoneId.of("America/New_York"))
                .weekdays()
                .excluding(LocalDate.of(2026, 7, 3), LocalDate.of(2099, 12, 31))
                .lastBusinessDayOfMonth())
        .map(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("calendars")
  void calendar_roundTripsExactly(BusinessCalendar calendar) {
    store.putCalendar("desk", calendar);

    assertThat(store.calendars()).containsExactly(java.util.Map.entry("desk", calendar));
  }

  /** Storing a calendar again replaces its definition, excluded dates included. */
  @Test
  void putCalendar_again_replacesTheDefinition() {
    BusinessCalendar first =
        BusinessCalendar.in(ZoneOffset.UTC).weekdays().excluding(LocalDate.of(2026, 1, 6));
    BusinessCalendar second =
        BusinessCalendar.in(ZoneOffset.UTC)
            .excluding(LocalDate.of(2026, 1, 7))
            .between(LocalTime.of(9, 0), LocalTime.of(17, 0));
    store.putCalendar("desk", first);
    store.putCalendar("other", first);

    store.putCalendar("desk", second);

    assertThat(store.calendars()).containsOnlyKeys("desk", "other");
    assertThat(store.calendars().get("desk")).isEqualTo(second);
    assertThat(store.calendars().get("other")).isEqualTo(first);
  }

  /** A calendar a job refers to is not deleted; the refusal names the job. */
  @Test
  void deleteCalendar_usedByAJob_refusedNamingIt() {
    store.putCalendar("desk", BusinessCalendar.in(ZoneOffset.UTC).weekdays());
    JobSpec spec =
        JobSpec.named("job")
            .handler("handler-1")
            .fixedRate(Duration.ofMinutes(5))
            .excluding("desk");
    store.upsert(JobRecord.fresh(spec, T0));

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.deleteCalendar("desk"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("calendar 'desk'")
        .hasMessageContaining("'job'");
    assertThat(store.calendars()).containsOnlyKeys("desk");

    store.delete("job");
    assertThat(store.deleteCalendar("desk")).isTrue();
    assertThat(store.deleteCalendar("desk")).isFalse();
    assertThat(store.calendars()).isEmpty();
  }

  /** A jittered job's due time differs from its next fire time; the store keeps both exactly. */
  @Test
  void upsert_jitteredDueTime_keptApartFromNextFireTime() {
    JobSpec spec =
        JobSpec.named("job")
            .handler("handler-1")
            .fixedRate(Duration.ofMinutes(5))
            .jitter(Duration.ofMinutes(1));
    Instant due = T0.plusSeconds(37).plusNanos(5);
    JobRecord fresh = JobRecord.fresh(spec, T0);
    store.upsert(fresh.withSchedule(fresh.state(), T0, due, FireKind.TIMETABLE, 1));

    JobRecord r = stored("job");
    assertThat(r.nextFireTime()).isEqualTo(T0);
    assertThat(r.dueTime()).isEqualTo(due);
    assertThat(store.due(null, due, 10)).isEmpty();
    assertThat(store.due(null, due.plusNanos(1), 10))
        .extracting(JobRecord::key)
        .containsExactly("job");
  }

  /**
   * Instants at the edges of what a store must keep exactly.
   *
   * @return the instants
   */
  public static Stream<Instant> instants() {
    return Stream.of(
        T0,
        T0.plusNanos(1),
        T0.plusNanos(999_999_999),
        Instant.EPOCH,
        Instant.EPOCH.minusNanos(1),
        Instant.parse("1900-02-28T23:59:59.5Z"),
        Instant.parse("2262-04-11T23:47:16.854775807Z"),
        Instant.parse("9999-12-31T23:59:59.999999999Z"),
        Instant.MAX,
        Instant.MIN);
  }

  @ParameterizedTest
  @MethodSource("instants")
  void instants_roundTripExactlyAndOrder(Instant t) {
    JobRecord r = store.upsert(JobRecord.fresh(spec("job").at(t).startAt(t), t)).record();
    RunResult x =
        new RunResult(
            new RunRecord("job", t, t, t, RunOutcome.SUCCESS, null, 1, "i"),
            r.version(),
            new ScheduleState(JobState.SCHEDULED, t, t, FireKind.TIMETABLE, 1));
    store.runFinished(x);

    JobRecord s = stored("job");
    assertThat(
            List.of(
                s.nextFireTime(),
                s.dueTime(),
                s.lastScheduledFireTime(),
                s.lastStart(),
                s.lastEnd()))
        .containsOnly(t);
    assertThat(s.spec().startAt()).contains(t);
    assertThat(((Schedule.Once) s.spec().schedule()).at()).isEqualTo(t);
    assertThat(store.history("job", 1).get(0).start()).isEqualTo(t);
    if (!t.equals(Instant.MAX)) {
      assertThat(store.due(null, t, 10)).isEmpty();
      assertThat(store.due(null, t.plusNanos(1), 10)).hasSize(1);
    }
  }

  @Test
  void due_nanosecondApart_orderedExactly() {
    List<String> keys = IntStream.range(0, 5).mapToObj(i -> "n" + (4 - i)).toList();
    for (int i = 0; i < 5; i++) {
      store.upsert(fresh(keys.get(i), T0.plusNanos(i)));
    }

    assertThat(store.due(null, T0.plusNanos(4), 10))
        .extracting(JobRecord::key)
        .containsExactly("n4", "n3", "n2", "n1");
  }

  // ---- backfill ------------------------------------------------------------------------------

  private static Instant minutes(int n) {
    return T0.plusSeconds(60L * n);
  }

  /**
   * A successful run of a backfill slot, as {@code finishBackfill} is given it.
   *
   * @param key the job key
   * @param fire the slot's fire time
   * @param instance the instance that ran it
   * @return the run
   */
  protected static RunRecord backfillRun(String key, Instant fire, String instance) {
    return new RunRecord(
        key, fire, T0, T0.plusSeconds(1), RunOutcome.SUCCESS, null, 1, instance, false, 0, true);
  }

  /**
   * A successful concurrent run ({@code Overlap.allow}), as {@code finishConcurrentRun} is given
   * it.
   *
   * @param key the job key
   * @param fire the run's fire time
   * @param instance the instance that ran it
   * @return the run
   */
  protected static RunRecord concurrentRun(String key, Instant fire, String instance) {
    return new RunRecord(
        key, fire, T0, T0.plusSeconds(1), RunOutcome.SUCCESS, null, 1, instance, false, 0);
  }

  private List<BackfillSlot> slotsOf(String key) {
    return store.backfillSlots(key);
  }

  @Test
  void addBackfill_queuesEachFireTimeOnceAsPending() {
    store.upsert(fresh("a", T0));

    assertThat(store.addBackfill("a", List.of(minutes(-3), minutes(-2), minutes(-1)))).isEqualTo(3);
    assertThat(store.addBackfill("a", List.of(minutes(-2), minutes(-1), T0))).isEqualTo(1);

    assertThat(slotsOf("a"))
        .extracting(BackfillSlot::fireTime, BackfillSlot::state, BackfillSlot::owner)
        .containsExactly(
            tuple(minutes(-3), BackfillSlot.State.PENDING, null),
            tuple(minutes(-2), BackfillSlot.State.PENDING, null),
            tuple(minutes(-1), BackfillSlot.State.PENDING, null),
            tuple(T0, BackfillSlot.State.PENDING, null));
  }

  @Test
  void addBackfill_unknownJob_queuesNothing() {
    assertThat(store.addBackfill("nope", List.of(T0))).isZero();

    assertThat(slotsOf("nope")).isEmpty();
    assertThat(store.nextBackfill(10)).isEmpty();
  }

  @Test
  void addBackfill_nanosecondsRoundTripExactly() {
    store.upsert(fresh("a", T0));
    Instant fire = T0.minusNanos(1);

    store.addBackfill("a", List.of(fire));

    assertThat(store.nextBackfill(10)).extracting(BackfillSlot::fireTime).containsExactly(fire);
    assertThat(store.addBackfill("a", List.of(fire))).isZero();
  }

  /** Per job, its earliest slot not done, if pending; ordered by (fire time, key), limited. */
  @Test
  void nextBackfill_earliestPendingSlotPerJob_inFireTimeThenKeyOrder() {
    store.upsert(fresh("a", T0));
    store.upsert(fresh("b", T0));
    store.upsert(fresh("c", T0));
    store.addBackfill("a", List.of(minutes(-3), minutes(-1)));
    store.addBackfill("b", List.of(minutes(-2)));
    store.addBackfill("c", List.of(minutes(-2)));

    assertThat(store.nextBackfill(10))
        .extracting(BackfillSlot::key, BackfillSlot::fireTime)
        .containsExactly(tuple("a", minutes(-3)), tuple("b", minutes(-2)), tuple("c", minutes(-2)));

    assertThat(store.claimBackfill("a", minutes(-3), "i1")).isTrue();
    assertThat(store.nextBackfill(10))
        .extracting(BackfillSlot::key)
        .containsExactly("b", "c"); // a's earliest is running: its next waits

    assertThat(store.finishBackfill(backfillRun("a", minutes(-3), "i1"), "i1")).isTrue();
    assertThat(store.nextBackfill(10))
        .extracting(BackfillSlot::key, BackfillSlot::fireTime)
        .containsExactly(tuple("b", minutes(-2)), tuple("c", minutes(-2)), tuple("a", minutes(-1)));
    assertThat(store.nextBackfill(1))
        .extracting(BackfillSlot::key, BackfillSlot::fireTime)
        .containsExactly(tuple("b", minutes(-2)));
  }

  @Test
  void claimBackfill_pendingOnly_onceAmongInstances() {
    store.upsert(fresh("a", T0));
    store.addBackfill("a", List.of(minutes(-1)));

    assertThat(store.claimBackfill("a", minutes(-1), "i1")).isTrue();
    assertThat(store.claimBackfill("a", minutes(-1), "i2")).isFalse();
    assertThat(store.claimBackfill("a", minutes(-2), "i2")).isFalse();
    assertThat(store.claimBackfill("nope", minutes(-1), "i2")).isFalse();

    assertThat(slotsOf("a"))
        .extracting(BackfillSlot::state, BackfillSlot::owner)
        .containsExactly(tuple(BackfillSlot.State.RUNNING, "i1"));
  }

  @Test
  void finishBackfill_byOwner_doneWithHistoryRow_neverQueuedAgain() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.addBackfill("a", List.of(minutes(-1)));
    store.claimBackfill("a", minutes(-1), "i1");

    assertThat(store.finishBackfill(backfillRun("a", minutes(-1), "i2"), "i2")).isFalse();
    assertThat(store.finishBackfill(backfillRun("a", minutes(-1), "i1"), "i1")).isTrue();

    assertThat(slotsOf("a"))
        .extracting(BackfillSlot::state, BackfillSlot::owner)
        .containsExactly(tuple(BackfillSlot.State.DONE, null));
    assertThat(store.history("a", 10))
        .extracting(RunRecord::scheduledFireTime, RunRecord::instance, RunRecord::backfill)
        .contains(tuple(minutes(-1), "i1", true));
    assertThat(store.addBackfill("a", List.of(minutes(-1)))).isZero();
    assertThat(store.nextBackfill(10)).isEmpty();
    assertThat(store.find("a")).contains(r); // the job's own row is left alone
  }

  /**
   * A backfill run that ends after its job was unscheduled writes nothing: no history row that a
   * job created again under the key would inherit.
   */
  @Test
  void finishBackfill_ofADeletedJob_writesNoHistory() {
    store.upsert(fresh("a", T0));
    store.addBackfill("a", List.of(minutes(-1)));
    assertThat(store.claimBackfill("a", minutes(-1), "i1")).isTrue();
    assertThat(store.delete("a")).isTrue();

    assertThat(store.finishBackfill(backfillRun("a", minutes(-1), "i1"), "i1")).isFalse();

    store.upsert(fresh("a", T0));
    assertThat(store.history("a", 10)).isEmpty();
  }

  @Test
  void releaseBackfill_givesBackClaimsOfInstancesNotLive() {
    store.upsert(fresh("a", T0));
    store.upsert(fresh("b", T0));
    store.addBackfill("a", List.of(minutes(-1)));
    store.addBackfill("b", List.of(minutes(-1)));
    store.claimBackfill("a", minutes(-1), "i1");
    store.claimBackfill("b", minutes(-1), "i2");

    assertThat(store.releaseBackfill(List.of("i1"))).isEqualTo(1);
    assertThat(slotsOf("a"))
        .extracting(BackfillSlot::state)
        .containsExactly(BackfillSlot.State.RUNNING);
    assertThat(slotsOf("b"))
        .extracting(BackfillSlot::state)
        .containsExactly(BackfillSlot.State.PENDING);

    assertThat(store.releaseBackfill(List.of())).isEqualTo(1);
    assertThat(store.nextBackfill(10)).extracting(BackfillSlot::key).containsExactly("a", "b");
  }

  @Test
  void delete_deletesTheJobsBackfillSlots() {
    store.upsert(fresh("a", T0));
    store.upsert(fresh("b", T0));
    store.addBackfill("a", List.of(minutes(-1)));
    store.addBackfill("b", List.of(minutes(-1)));

    store.delete("a");
    store.deleteAll(List.of("b"));

    assertThat(slotsOf("a")).isEmpty();
    assertThat(slotsOf("b")).isEmpty();
    assertThat(store.nextBackfill(10)).isEmpty();
    store.upsert(fresh("a", T0));
    assertThat(store.addBackfill("a", List.of(minutes(-1)))).isEqualTo(1);
  }

  // ---- concurrent runs (Overlap.allow) --------------------------------------------------------

  /**
   * The start of a run of {@code r}'s due fire under a bound of {@code max}; next fire 1 min on.
   */
  /**
   * The start of a concurrent run of r's next fire, moving the job on one minute.
   *
   * @param r the record the start is decided from
   * @param instance the instance starting it
   * @param max the bound of concurrent runs
   * @return the start
   */
  protected static ConcurrentRun start(JobRecord r, String instance, int max) {
    Instant next = r.nextFireTime().plusSeconds(60);
    return new ConcurrentRun(
        r.key(),
        r.version(),
        r.nextFireTime(),
        T0.plusMillis(5),
        instance,
        max,
        new ConcurrentRun.Next(JobState.SCHEDULED, next, next, FireKind.TIMETABLE),
        false,
        null);
  }

  /**
   * A start moves the job on (version, next fire, last start, run count) and records the run as a
   * RUNNING slot of kind RUN; a start from a stale version is refused as CHANGED; once the bound is
   * reached the next is FULL and changes nothing; finishing deletes the record and writes the
   * history row, leaving the job's row alone; only the owner finishes it.
   */
  @Test
  void startConcurrentRun_movesTheJobOn_recordsTheRun_boundAndVersionRefuse_finishDeletes() {
    assumeTrue(store.supportsConcurrentRuns(), "the store keeps no concurrent runs");
    JobRecord r0 = store.upsert(fresh("a", T0)).record();

    ConcurrentRun.Answer first = store.startConcurrentRun(start(r0, "i1", 2));
    assertThat(first.outcome()).isEqualTo(ConcurrentRun.Outcome.STARTED);
    JobRecord r1 = first.started().orElseThrow();
    assertThat(r1.version()).isEqualTo(r0.version() + 1);
    assertThat(r1.nextFireTime()).isEqualTo(T0.plusSeconds(60));
    assertThat(r1.lastScheduledFireTime()).isEqualTo(T0);
    assertThat(r1.lastStart()).isEqualTo(T0.plusMillis(5));
    assertThat(r1.runCount()).isEqualTo(r0.runCount() + 1);
    assertThat(store.find("a")).contains(r1);
    assertThat(store.startConcurrentRun(start(r0, "i2", 2)).outcome())
        .isEqualTo(ConcurrentRun.Outcome.CHANGED);

    JobRecord r2 = store.startConcurrentRun(start(r1, "i2", 2)).started().orElseThrow();
    assertThat(store.startConcurrentRun(start(r2, "i1", 2)).outcome())
        .isEqualTo(ConcurrentRun.Outcome.FULL);
    assertThat(store.find("a")).contains(r2);
    assertThat(slotsOf("a"))
        .extracting(
            BackfillSlot::fireTime, BackfillSlot::state, BackfillSlot::owner, BackfillSlot::kind)
        .containsExactly(
            tuple(T0, BackfillSlot.State.RUNNING, "i1", BackfillSlot.Kind.RUN),
            tuple(T0.plusSeconds(60), BackfillSlot.State.RUNNING, "i2", BackfillSlot.Kind.RUN));

    assertThat(store.finishConcurrentRun(concurrentRun("a", T0, "i2"), "i2")).isFalse();
    assertThat(store.finishConcurrentRun(concurrentRun("a", T0, "i1"), "i1")).isTrue();
    assertThat(store.finishBackfill(backfillRun("a", T0.plusSeconds(60), "i2"), "i2"))
        .as("a RUN record is not a backfill slot")
        .isFalse();
    assertThat(slotsOf("a")).extracting(BackfillSlot::fireTime).containsExactly(T0.plusSeconds(60));
    assertThat(store.history("a", 10))
        .extracting(RunRecord::scheduledFireTime, RunRecord::instance)
        .contains(tuple(T0, "i1"));
    assertThat(store.find("a")).contains(r2);
    assertThat(store.startConcurrentRun(start(r2, "i1", 2)).outcome())
        .isEqualTo(ConcurrentRun.Outcome.STARTED);
  }

  /**
   * A run record whose instance is gone is given back like a backfill claim, offered by
   * nextBackfill with its kind, claimed again and finished by the new owner; a record counts
   * against the bound while it waits to run again.
   */
  @Test
  void concurrentRun_releasedAfterACrash_isOfferedAsRun_countsAgainstTheBound() {
    assumeTrue(store.supportsConcurrentRuns(), "the store keeps no concurrent runs");
    JobRecord r0 = store.upsert(fresh("a", T0)).record();
    JobRecord r1 = store.startConcurrentRun(start(r0, "dead", 1)).started().orElseThrow();

    assertThat(store.releaseBackfill(List.of("i1"))).isEqualTo(1);
    assertThat(store.startConcurrentRun(start(r1, "i1", 1)).outcome())
        .isEqualTo(ConcurrentRun.Outcome.FULL);
    assertThat(store.nextBackfill(10))
        .extracting(BackfillSlot::fireTime, BackfillSlot::state, BackfillSlot::kind)
        .containsExactly(tuple(T0, BackfillSlot.State.PENDING, BackfillSlot.Kind.RUN));
    assertThat(store.claimBackfill("a", T0, "i1")).isTrue();
    assertThat(store.finishConcurrentRun(concurrentRun("a", T0, "i1"), "i1")).isTrue();
    assertThat(slotsOf("a")).isEmpty();
  }

  /**
   * A fire that is already a backfill slot of the job is not recorded twice: the start moves the
   * job on and the slot stands for the fire; a deleted job takes its run records with it and a late
   * finish writes nothing.
   */
  @Test
  void startConcurrentRun_fireAlreadyABackfillSlot_slotStands_deleteTakesRecords() {
    assumeTrue(store.supportsConcurrentRuns(), "the store keeps no concurrent runs");
    JobRecord r0 = store.upsert(fresh("a", T0)).record();
    store.addBackfill("a", List.of(T0));

    JobRecord r1 = store.startConcurrentRun(start(r0, "i1", 2)).started().orElseThrow();
    assertThat(r1.nextFireTime()).isEqualTo(T0.plusSeconds(60));
    assertThat(slotsOf("a"))
        .extracting(BackfillSlot::kind, BackfillSlot::state)
        .containsExactly(tuple(BackfillSlot.Kind.BACKFILL, BackfillSlot.State.PENDING));

    store.startConcurrentRun(start(r1, "i1", 2));
    store.delete("a");
    assertThat(slotsOf("a")).isEmpty();
    assertThat(store.finishConcurrentRun(concurrentRun("a", T0.plusSeconds(60), "i1"), "i1"))
        .isFalse();
    assertThat(store.history("a", 10)).isEmpty();
  }
}
