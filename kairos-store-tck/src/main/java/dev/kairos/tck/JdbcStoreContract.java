package dev.kairos.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.StoreException;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.jdbc.internal.Dialect;
import dev.kairos.jdbc.internal.Migrations;
import dev.kairos.spi.BackfillSlot;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.ScheduleState;
import dev.kairos.spi.Upsert;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The store contract plus what only a database store has: rows edited behind its back, trimmed
 * text, history by age, the schema's life cycle, and concurrent writers. Each store a test opens
 * gets tables of its own (a fresh prefix) in the subclass's database.
 */
public abstract class JdbcStoreContract extends JobStoreContract {
  private static final AtomicInteger PREFIXES = new AtomicInteger();

  /** Prefix of {@link #store}'s tables (the first store a test opens). */
  private String prefix;

  /**
   * The database the test's stores live in.
   *
   * @return the database
   */
  protected abstract TestDatabase database();

  /**
   * A table prefix no other store of this JVM uses.
   *
   * @return the new prefix
   */
  public static String nextPrefix() {
    return "t" + PREFIXES.incrementAndGet() + "_";
  }

  @Override
  protected JobStore newStore(int historyPerJob, boolean keepCompleted) {
    String p = nextPrefix();
    if (prefix == null) {
      prefix = p;
    }
    return database()
        .builder()
        .tablePrefix(p)
        .historyPerJob(historyPerJob)
        .keepCompleted(keepCompleted)
        .startMarkDelay(Duration.ZERO) // the contract's exact semantics; deferred marks below
        .build()
        .jobStore();
  }

  String jobs() {
    return prefix + "jobs";
  }

  private Map<String, Object> rowOf(String key) {
    return database()
        .row("SELECT * FROM " + jobs() + " WHERE job_key = '" + key + "'")
        .orElseThrow();
  }

  // ---- rows edited by hand ---------------------------------------------------------------------

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "schedule_kind = 'BOGUS'           | unknown schedule_kind 'BOGUS'",
        "fixed_period = 'every day'        | fixed_period 'every day' is not an ISO-8601 duration",
        "schedule_kind = 'CRON', cron_expression = '0 0 * * * ?', cron_zone = 'Mars/Olympus' | cron_zone 'Mars/Olympus' is not a zone id",
        "due_time = 99999999999999999.5    | due_time 99999999999999999.500000000 is not an instant",
        "fixed_period = NULL               | fixed_period is null",
        "state = 'DANCING'                 | unknown state 'DANCING'",
        "misfire_kind = 'LATER'            | unknown misfire_kind 'LATER'",
        "due_kind = 'SOMETIME'             | unknown due_kind 'SOMETIME'",
        "schedule_kind = 'CRON'            | cron_expression is null",
      })
  void badRow_skippedByDueAndFindAll_findNamesKey_rowLeftAsItIs(String edit, String problem) {
    for (String k : List.of("a", "b", "c")) {
      store.upsert(fresh(k, T0));
    }
    database().execute("UPDATE " + jobs() + " SET " + edit + " WHERE job_key = 'b'");
    Map<String, Object> before = rowOf("b");

    assertThat(store.due(null, Instant.MAX, 10))
        .extracting(JobRecord::key)
        .containsExactly("a", "c");
    assertThat(store.findAll()).extracting(JobRecord::key).containsExactly("a", "c");
    assertThatThrownBy(() -> store.find("b"))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("job 'b'")
        .hasMessageContaining(problem);
    assertThat(rowOf("b")).isEqualTo(before);
  }

  @Test
  void due_badRowsInPage_stillFillsTheLimit() {
    for (int i = 0; i < 8; i++) {
      store.upsert(fresh("k" + i, T0.plusSeconds(i)));
    }
    database()
        .execute(
            "UPDATE "
                + jobs()
                + " SET schedule_kind = 'BOGUS' WHERE job_key IN ('k1', 'k2', 'k4')");

    assertThat(store.due(null, Instant.MAX, 4))
        .extracting(JobRecord::key)
        .containsExactly("k0", "k3", "k5", "k6");
  }

  @Test
  void runFinished_badRow_leftAsItIs() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.runStarted("a", T0, T0, "node-1");
    database().execute("UPDATE " + jobs() + " SET schedule_kind = 'BOGUS' WHERE job_key = 'a'");
    Map<String, Object> before = rowOf("a");

    assertThat(store.runFinished(success(r))).isEmpty();

    assertThat(rowOf("a")).isEqualTo(before);
    assertThat(before.get("state")).isEqualTo("RUNNING");
  }

  @Test
  void upsert_badRow_replacesDefinitionKeepingStatistics() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.runFinished(success(r));
    database().execute("UPDATE " + jobs() + " SET schedule_kind = 'BOGUS' WHERE job_key = 'a'");

    Upsert u = store.upsert(fresh("a", T0.plusSeconds(600)));

    assertThat(u.change()).isEqualTo(Upsert.Change.UPDATED);
    assertThat(u.record().spec()).isEqualTo(spec("a"));
    assertThat(u.record().runCount()).isEqualTo(1);
    assertThat(u.record().version()).isEqualTo(r.version() + 2);
    assertThat(store.find("a")).contains(u.record());
  }

  /**
   * A write-back repeated after its commit's acknowledgement was lost is not applied twice, while
   * the next run, taken at the new version, is.
   */
  @Test
  void runFinished_repeatedAfterLostAcknowledgement_appliedOnce() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    JobRecord once = store.runFinished(success(r)).orElseThrow();

    assertThat(store.runFinished(success(r))).contains(once);
    assertThat(store.history("a", 10)).hasSize(1);

    JobRecord next = store.runFinished(success(once)).orElseThrow();
    assertThat(next.runCount()).isEqualTo(2);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "missed_fires = -1  | missed fires must not be negative: -1",
        "attempt = 0        | attempt must be at least 1: 0",
        "outcome = 'MAYBE'  | unknown outcome 'MAYBE'",
        "backfill = TRUE, recovery = TRUE | a backfill run is no recovery",
      })
  void history_badRunRow_refusedNamingKey(String edit, String problem) {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    store.runFinished(success(r));
    database().execute("UPDATE " + prefix + "runs SET " + edit + " WHERE job_key = 'a'");

    assertThatThrownBy(() -> store.history("a", 10))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("job 'a'")
        .hasStackTraceContaining(problem);
  }

  /** A backfill row edited by hand is refused (logged with its key), never offered to run. */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "state = 'MAYBE'",
        "owner = 'i9'",
        "state = 'RUNNING'",
      })
  void backfill_badSlotRow_neverOffered(String edit) {
    store.upsert(fresh("a", T0));
    store.upsert(fresh("b", T0));
    store.addBackfill("a", List.of(T0.minusSeconds(60)));
    store.addBackfill("b", List.of(T0.minusSeconds(60)));
    database().execute("UPDATE " + prefix + "backfill SET " + edit + " WHERE job_key = 'a'");

    assertThat(store.nextBackfill(10)).extracting(BackfillSlot::key).containsExactly("b");
    assertThat(store.backfillSlots("a")).isEmpty();
    assertThat(store.claimBackfill("b", T0.minusSeconds(60), "i1")).isTrue();
  }

  /**
   * A job's earliest slot edited into a state the engine never writes is never offered, and does
   * not hold up the job's later slots, which run in order as if it were not there; listing the
   * job's slots refuses it, and its row is left as it is.
   */
  @Test
  void backfill_slotInAnUnknownState_neverOffered_laterSlotsStillRun() {
    store.upsert(fresh("a", T0));
    Instant first = T0.minusSeconds(180);
    Instant second = T0.minusSeconds(120);
    store.addBackfill("a", List.of(first, second, T0.minusSeconds(60)));
    String where = " WHERE job_key = 'a' AND fire_time = " + first.getEpochSecond();
    database().execute("UPDATE " + prefix + "backfill SET state = 'WHATEVER'" + where);

    assertThat(store.nextBackfill(10))
        .extracting(BackfillSlot::key, BackfillSlot::fireTime)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("a", second));
    assertThat(store.claimBackfill("a", second, "i1")).isTrue();
    // A store opening over these tables names the slot (WARN) and leaves it as it is.
    try (JdbcStore other = database().builder().tablePrefix(prefix).build()) {
      other.open();
    }
    assertThat(store.backfillSlots("a"))
        .extracting(BackfillSlot::fireTime)
        .containsExactly(second, T0.minusSeconds(60));
    assertThat(
            database()
                .row("SELECT state FROM " + prefix + "backfill" + where)
                .orElseThrow()
                .values())
        .extracting(v -> String.valueOf(v).trim())
        .containsExactly("WHATEVER");
  }

  // ---- text and history limits -----------------------------------------------------------------

  @Test
  void errors_trimmedTo2000Characters() {
    JobRecord r = store.upsert(fresh("a", T0)).record();
    String huge = "E".repeat(5000);

    JobRecord after = store.runFinished(failure(r, huge)).orElseThrow();

    assertThat(after.lastError()).hasSize(2000).endsWith("...").startsWith("EEE");
    assertThat(store.find("a").orElseThrow().lastError()).isEqualTo(after.lastError());
    assertThat(store.history("a", 1).get(0).error()).isEqualTo(after.lastError());
  }

  /**
   * Error texts a database cannot hold as they are (PostgreSQL refuses a NUL; no UTF-8 column holds
   * half of a surrogate pair) are written with those characters as backslash-u codes, in a batch
   * beside other runs, and the whole batch lands: one such text failed the batch's transaction on
   * PostgreSQL, and the engine retried it without end.
   */
  @Test
  void runsFinished_errorsNoDatabaseHolds_storedEscapedAndTheBatchLands() {
    JobRecord a = store.upsert(fresh("a", T0)).record();
    JobRecord b = store.upsert(fresh("b", T0)).record();
    JobRecord c = store.upsert(fresh("c", T0)).record();
    // a pair straddling the 2000-character cut is dropped whole, not split
    String straddling = "y".repeat(1996) + "\uD83D\uDE80 tail";

    List<Optional<JobRecord>> written =
        store.runsFinished(
            List.of(failure(a, "bad\0byte"), failure(b, "lone\uD800 \uD83D\uDE80"), success(c)));
    JobRecord straddled =
        store.runFinished(failure(store.find("c").orElseThrow(), straddling)).orElseThrow();

    assertThat(written).allMatch(Optional::isPresent);
    assertThat(store.find("a").orElseThrow().lastError()).isEqualTo("bad\\u0000byte");
    assertThat(store.find("b").orElseThrow().lastError()).isEqualTo("lone\\ud800 \uD83D\uDE80");
    assertThat(store.find("c").orElseThrow().runCount()).isEqualTo(2);
    assertThat(store.history("a", 1).get(0).error()).isEqualTo("bad\\u0000byte");
    assertThat(store.history("b", 1).get(0).error()).isEqualTo("lone\\ud800 \uD83D\uDE80");
    assertThat(straddled.lastError()).isEqualTo("y".repeat(1996) + "...");
    assertThat(store.history("c", 1).get(0).error()).isEqualTo(straddled.lastError());
  }

  /**
   * Runs written back apart from the job's own write-back (concurrent runs under {@code allow(n)},
   * backfill slots) keep the history table within {@code historyPerJob}, as the job's own runs do.
   */
  @Test
  void history_ofConcurrentAndBackfillRuns_keptWithinHistoryPerJob() {
    String p = nextPrefix();
    JobStore small = database().builder().tablePrefix(p).historyPerJob(3).build().jobStore();
    try {
      small.open();
      JobRecord r = small.upsert(fresh("a", T0)).record();
      for (int i = 0; i < 12; i++) {
        Instant fire = r.nextFireTime();
        r = small.startConcurrentRun(start(r, "i1", 1)).started().orElseThrow();
        assertThat(small.finishConcurrentRun(concurrentRun("a", fire, "i1"), "i1")).isTrue();
      }
      assertThat(historyRows(p, "a")).isEqualTo(3);
      List<Instant> slots = new ArrayList<>();
      for (int i = 1; i <= 12; i++) {
        slots.add(T0.minusSeconds(3600L * i));
      }
      assertThat(small.addBackfill("a", slots)).isEqualTo(12);
      for (Instant fire : slots) {
        assertThat(small.claimBackfill("a", fire, "i1")).isTrue();
        assertThat(small.finishBackfill(backfillRun("a", fire, "i1"), "i1")).isTrue();
      }
      assertThat(historyRows(p, "a")).isEqualTo(3);
      assertThat(small.history("a", 10))
          .extracting(RunRecord::scheduledFireTime)
          .containsExactly(slots.get(11), slots.get(10), slots.get(9));
    } finally {
      small.close();
    }
  }

  private long historyRows(String prefix, String key) {
    Object n =
        database()
            .row("SELECT COUNT(*) AS n FROM " + prefix + "runs WHERE job_key = '" + key + "'")
            .orElseThrow()
            .get("n");
    return Long.parseLong(String.valueOf(n));
  }

  @Test
  void historyMaxAge_deletesRunsEndedLongBeforeTheNewest() {
    JobStore aging =
        database()
            .builder()
            .tablePrefix(nextPrefix())
            .historyMaxAge(Duration.ofMinutes(5))
            .build()
            .jobStore();
    try {
      aging.open();
      JobRecord r = aging.upsert(fresh("a", T0)).record();
      for (int i = 0; i < 20; i++) {
        r = aging.runFinished(success(r)).orElseThrow();
      }

      List<RunRecord> h = aging.history("a", 100);

      assertThat(h)
          .extracting(RunRecord::scheduledFireTime)
          .containsExactly(
              T0.plusSeconds(19 * 60),
              T0.plusSeconds(18 * 60),
              T0.plusSeconds(17 * 60),
              T0.plusSeconds(16 * 60),
              T0.plusSeconds(15 * 60),
              T0.plusSeconds(14 * 60));
    } finally {
      aging.close();
    }
  }

  // ---- concurrency -----------------------------------------------------------------------------

  /** Racing inserts of one new key: exactly one creates it, the others find it unchanged. */
  @Test
  void upsert_concurrentInsertsOfOneKey_oneCreatedOthersUnchanged() throws Exception {
    int threads = 4;
    for (int round = 0; round < 5; round++) {
      String key = "race-" + round;
      List<Upsert.Change> seen = race(threads, t -> store.upsert(fresh(key, T0)).change());
      assertThat(seen).containsOnlyOnce(Upsert.Change.CREATED);
      assertThat(seen).filteredOn(c -> c == Upsert.Change.UNCHANGED).hasSize(threads - 1);
    }
  }

  /**
   * Racing inserts of one new key with different definitions: exactly one creates it, every other
   * replaces it, and the row holds the definition of the write with the highest version.
   */
  @Test
  void upsert_concurrentInsertsOfOneKeyWithDifferentDefinitions_oneCreatedOthersUpdated()
      throws Exception {
    int threads = 4;
    for (int round = 0; round < 5; round++) {
      String key = "race-apart-" + round;
      List<Upsert> seen =
          race(
              threads,
              t ->
                  store.upsert(
                      JobRecord.fresh(
                          JobSpec.named(key).handler("h").fixedRate(Duration.ofMinutes(1 + t)),
                          T0)));
      assertThat(seen.stream().map(Upsert::change))
          .containsOnlyOnce(Upsert.Change.CREATED)
          .filteredOn(c -> c == Upsert.Change.UPDATED)
          .hasSize(threads - 1);
      Upsert last =
          seen.stream().max(java.util.Comparator.comparingLong(u -> u.record().version())).get();
      assertThat(store.find(key).orElseThrow().spec()).isEqualTo(last.record().spec());
      assertThat(seen.stream().map(u -> u.record().version()).distinct()).hasSize(threads);
    }
  }

  /**
   * Racing {@code putCalendar} of one name (instances defining their calendars at start), new and
   * then existing: every call succeeds, and one of the definitions given is stored whole.
   */
  @Test
  void putCalendar_concurrentlyOfOneName_allSucceedOneDefinitionStored() throws Exception {
    int threads = 4;
    for (int round = 0; round < 6; round++) {
      String name = "race-" + (round / 2); // each name new, then stored again
      List<dev.kairos.BusinessCalendar> given = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        given.add(
            dev.kairos.BusinessCalendar.in(java.time.ZoneOffset.UTC)
                .weekdays()
                .excluding(
                    java.time.LocalDate.of(2026, 1, 1 + t),
                    java.time.LocalDate.of(2026, 2, 1 + round)));
      }
      race(
          threads,
          t -> {
            store.putCalendar(name, given.get(t));
            return t;
          });
      assertThat(given).contains(store.calendars().get(name));
    }
  }

  /**
   * {@code deleteCalendar} racing the upsert of a job attached to that calendar (one instance
   * removing a calendar while another schedules a job on it), alone or in a bulk upsert: one of the
   * two is refused, naming the job or the calendar, and no job is left attached to a calendar that
   * is gone.
   */
  @Test
  void deleteCalendar_racingAnUpsertAttachingAJob_oneRefusedNoJobLeftWithoutIt() throws Exception {
    dev.kairos.BusinessCalendar desk =
        dev.kairos.BusinessCalendar.in(java.time.ZoneOffset.UTC).weekdays();
    for (int round = 0; round < 30; round++) {
      String name = "desk-" + round;
      JobRecord attached = JobRecord.fresh(spec("attached-" + round).excluding(name), T0);
      boolean bulk = round % 2 == 1;
      store.putCalendar(name, desk);
      List<Object> answers =
          race(
              2,
              t -> {
                try {
                  if (t == 0) {
                    return store.deleteCalendar(name);
                  }
                  return bulk ? store.upsertAll(List.of(attached)) : store.upsert(attached);
                } catch (IllegalStateException e) {
                  return e;
                }
              });
      boolean calendarGone = !store.calendars().containsKey(name);
      boolean jobStored = store.find(attached.key()).isPresent();
      assertThat(calendarGone && jobStored)
          .as("round %d: job attached to a deleted calendar (answers %s)", round, answers)
          .isFalse();
      if (calendarGone) {
        assertThat(answers.get(1))
            .as("round %d", round)
            .isInstanceOfSatisfying(
                IllegalStateException.class,
                e ->
                    assertThat(e)
                        .hasMessageContaining("job '" + attached.key() + "'")
                        .hasMessageContaining("calendar '" + name + "'"));
      } else {
        assertThat(answers.get(0))
            .as("round %d", round)
            .isInstanceOfSatisfying(
                IllegalStateException.class,
                e -> assertThat(e).hasMessageContaining(attached.key()));
        assertThat(jobStored).isTrue();
      }
    }
  }

  /** A call of a racing test, given its index. */
  @FunctionalInterface
  private interface RacingCall<T> {
    T call(int index) throws Exception;
  }

  /**
   * Runs {@code call} for indexes 0 to {@code threads - 1}, each on a thread of its own, released
   * together; returns their answers in index order (30 s at most for each).
   */
  private static <T> List<T> race(int threads, RacingCall<T> call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> calls = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int index = t;
        calls.add(
            pool.submit(
                () -> {
                  go.await();
                  return call.call(index);
                }));
      }
      go.countDown();
      List<T> out = new ArrayList<>();
      for (Future<T> f : calls) {
        out.add(f.get(30, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- schema life cycle -----------------------------------------------------------------------

  @Test
  void createSchemaFalse_withoutTables_failsNamingThem() {
    String p = nextPrefix();
    JobStore s = database().builder().tablePrefix(p).createSchema(false).build().jobStore();

    assertThatThrownBy(s::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(p + Migrations.HISTORY + " missing")
        .hasMessageContaining("createSchema(true)");
    s.close();
  }

  @Test
  void createSchemaFalse_afterCreation_opensAndWorks() {
    store.upsert(fresh("a", T0));
    JobStore s = database().builder().tablePrefix(prefix).createSchema(false).build().jobStore();
    try {
      s.open();
      assertThat(s.find("a")).isPresent();
    } finally {
      s.close();
    }
  }

  @Test
  void open_schemaNewerThanKnown_failsClearlyNamingBothVersions() throws Exception {
    store.upsert(fresh("a", T0));
    database()
        .execute(
            quoted(
                "INSERT INTO \""
                    + prefix
                    + Migrations.HISTORY
                    + "\" (\"installed_rank\", \"version\", \"description\", \"type\","
                    + " \"script\", \"checksum\", \"installed_by\", \"execution_time\","
                    + " \"success\") VALUES (99, '99', 'future', 'SQL', 'V99__future.sql', 0,"
                    + " 'test', 0, TRUE)"));
    for (boolean create : new boolean[] {true, false}) {
      JdbcStore s = database().builder().tablePrefix(prefix).createSchema(create).build();

      assertThatThrownBy(s::open)
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("schema version 99")
          .hasMessageContaining("newer than this Kairos knows (" + Migrations.latest() + ")")
          .hasMessageContaining(prefix + Migrations.HISTORY)
          .hasMessageContaining("upgrade Kairos");
      s.close();
    }
  }

  /** Tables of the runner before Flyway at a version newer than this code: refused, not adopted. */
  @Test
  void open_legacySchemaNewerThanKnown_failsClearly() throws Exception {
    String p = nextPrefix();
    createAtVersion(p, Migrations.latest());
    database()
        .execute(
            "INSERT INTO " + p + "schema_version (version, script) VALUES (99, 'V99__future.sql')");
    JdbcStore s = database().builder().tablePrefix(p).build();

    assertThatThrownBy(s::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("schema version 99")
        .hasMessageContaining(p + Migrations.LEGACY)
        .hasMessageContaining("upgrade Kairos");
    s.close();
    assertThat(version(p)).isEqualTo(99);
  }

  @Test
  void open_existingSchema_appliesNothingAgain() throws Exception {
    store.upsert(fresh("a", T0));
    Object rows = historyRows(prefix);
    JobStore again = database().builder().tablePrefix(prefix).build().jobStore();
    try {
      again.open();
      again.open();
      assertThat(again.find("a")).isPresent();
      assertThat(historyRows(prefix)).isEqualTo(rows);
      assertThat(version(prefix)).isEqualTo(Migrations.latest());
    } finally {
      again.close();
    }
  }

  /**
   * Stores of one fresh prefix opened at the same time: one of them creates the tables under
   * Flyway's lock, every one opens, and each script is applied once.
   */
  @Test
  void open_concurrentlyOnFreshPrefix_appliesEachScriptOnce() throws Exception {
    String p = nextPrefix();
    int n = 4;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    List<JdbcStore> stores = new ArrayList<>();
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> opened = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        JdbcStore s = database().builder().tablePrefix(p).build();
        stores.add(s);
        opened.add(
            pool.submit(
                () -> {
                  start.await();
                  s.open();
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : opened) {
        f.get(2, TimeUnit.MINUTES);
      }
      assertThat(version(p)).isEqualTo(Migrations.latest());
      assertThat(
              database()
                  .row(
                      quoted(
                          "SELECT COUNT(*) AS n FROM \""
                              + p
                              + Migrations.HISTORY
                              + "\" WHERE \"script\" LIKE 'V%' AND \"success\" = TRUE"))
                  .orElseThrow()
                  .get("n"))
          .asString()
          .isEqualTo(String.valueOf(Migrations.SCRIPTS.size()));
    } finally {
      pool.shutdownNow();
      stores.forEach(JdbcStore::close);
    }
  }

  /**
   * Tables at schema version 2, with history written then, are brought to the latest version on
   * open: the history rows stay, read as runs that were no recovery and stood for no missed fire,
   * and new runs keep both.
   */
  @Test
  void open_versionTwoSchema_addsRunColumnsKeepingHistory() throws Exception {
    String p = nextPrefix();
    createAtVersion(p, 2);
    database()
        .execute(
            "INSERT INTO "
                + p
                + "runs (job_key, scheduled_fire_time, run_start, run_end, outcome, error,"
                + " attempt, instance) VALUES ('a', 1767578400, 1767578400.005, 1767578400.025,"
                + " 'FAILURE', 'boom', 2, 'old-node')");
    JobStore s =
        database().builder().tablePrefix(p).startMarkDelay(Duration.ZERO).build().jobStore();
    try {
      s.open();
      JobRecord r = s.upsert(fresh("a", T0.plusSeconds(60))).record();
      RunResult ok = success(r);
      s.runFinished(
          new RunResult(
              new RunRecord(
                  ok.key(),
                  ok.scheduledFireTime(),
                  ok.start(),
                  ok.end(),
                  RunOutcome.SUCCESS,
                  null,
                  1,
                  ok.instance(),
                  true,
                  2),
              ok.expectedVersion(),
              new ScheduleState(ok.state(), ok.nextFireTime(), ok.dueTime(), ok.dueKind(), 1),
              null));

      assertThat(s.history("a", 10))
          .containsExactly(
              new RunRecord(
                  "a",
                  T0.plusSeconds(60),
                  ok.start(),
                  ok.end(),
                  RunOutcome.SUCCESS,
                  null,
                  1,
                  "node-1",
                  true,
                  2),
              new RunRecord(
                  "a",
                  T0,
                  T0.plusMillis(5),
                  T0.plusMillis(25),
                  RunOutcome.FAILURE,
                  "boom",
                  2,
                  "old-node",
                  false,
                  0));
      assertThat(version(p)).isEqualTo(Migrations.latest());
      // The old runner's table stays as it was: Flyway adopted the tables by a baseline at 2.
      assertThat(database().row("SELECT COUNT(*) AS n FROM " + p + "schema_version").orElseThrow())
          .extractingByKey("n")
          .asString()
          .isEqualTo("2");
      assertThat(
              database()
                  .row(
                      quoted(
                          "SELECT \"version\" AS v FROM \""
                              + p
                              + Migrations.HISTORY
                              + "\" WHERE \"type\" = 'BASELINE'"))
                  .orElseThrow()
                  .get("v"))
          .asString()
          .isEqualTo("2");
    } finally {
      s.close();
    }
  }

  /** The schema version of the tables with this prefix, as the store reads it. */
  private int version(String p) throws Exception {
    try (Connection c = database().connect()) {
      return Migrations.version(c, Dialect.of(c.getMetaData()), p);
    }
  }

  /**
   * The SQL with its double-quoted names as this database quotes them: Flyway quotes the names of
   * its history table and columns (lower case, which H2 would otherwise read as upper case).
   */
  private String quoted(String sql) throws Exception {
    try (Connection c = database().connect()) {
      return Dialect.of(c.getMetaData()).mysqlFamily() ? sql.replace('"', '`') : sql;
    }
  }

  /** The history table's rows, as a list of their columns' text. */
  private List<String> historyRows(String p) throws Exception {
    try (Connection c = database().connect();
        var st = c.createStatement();
        var rs =
            st.executeQuery(
                quoted(
                    "SELECT \"installed_rank\", \"version\", \"script\", \"success\" FROM \""
                        + p
                        + Migrations.HISTORY
                        + "\" ORDER BY \"installed_rank\""))) {
      List<String> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(
            rs.getInt(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4));
      }
      return rows;
    }
  }

  /** Creates tables with this prefix as the first {@code version} scripts leave them. */
  private void createAtVersion(String p, int version) throws Exception {
    try (Connection c = database().connect()) {
      Dialect dialect = Dialect.of(c.getMetaData());
      database()
          .execute(
              "CREATE TABLE "
                  + p
                  + "schema_version (version INTEGER NOT NULL PRIMARY KEY, script VARCHAR(200)"
                  + " NOT NULL, installed_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)");
      for (String script : Migrations.SCRIPTS) {
        if (Migrations.version(script) > version) {
          break;
        }
        for (String sql : statements(dialect, script, p)) {
          database().execute(sql);
        }
        database()
            .execute(
                "INSERT INTO "
                    + p
                    + "schema_version (version, script) VALUES ("
                    + Migrations.version(script)
                    + ", '"
                    + script
                    + "')");
      }
    }
  }

  /** A script's statements, read as the migration runner reads them. */
  private static List<String> statements(Dialect dialect, String script, String p)
      throws IOException {
    String path = "/dev/kairos/jdbc/" + dialect.folder() + "/" + script;
    try (InputStream in = JdbcStore.class.getResourceAsStream(path)) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${prefix}", p);
      String code =
          text.lines().filter(l -> !l.strip().startsWith("--")).collect(Collectors.joining("\n"));
      return Arrays.stream(code.split(";\\s*(\\n|$)"))
          .map(String::strip)
          .filter(x -> !x.isEmpty())
          .toList();
    }
  }

  @Test
  void lifeCycle_opensOnFirstUse_failsClearlyAfterClose() {
    JobStore s = database().builder().tablePrefix(nextPrefix()).build().jobStore();
    s.upsert(fresh("a", T0));
    s.open();
    assertThat(s.find("a")).isPresent();
    s.close();
    s.close();
    assertThatThrownBy(() -> s.find("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(s::open)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void sqlFailure_wrappedInStoreExceptionNamingKey() {
    database().execute("DROP TABLE " + prefix + "runs");

    JobRecord r = store.upsert(fresh("a", T0)).record();

    assertThatThrownBy(() -> store.runFinished(success(r)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("job 'a'")
        .hasMessageContaining("failed")
        .hasRootCauseInstanceOf(java.sql.SQLException.class); // the driver's error, as thrown
    assertThat(store.find("a")).contains(r);
  }

  @Test
  void upsert_definitionOnly_columnsReadableBySql() {
    store.upsert(
        JobRecord.fresh(
            JobSpec.named("a").handler("h").fixedRate(Duration.ofDays(1)).startAt(T0), T0));

    Map<String, Object> row = rowOf("a");

    assertThat(row.get("schedule_kind")).isEqualTo("FIXED_RATE");
    assertThat(row.get("fixed_period")).isEqualTo("PT24H");
    assertThat(row.get("misfire_kind")).isEqualTo("FIRE_ONCE");
    assertThat(row.get("state")).isEqualTo("SCHEDULED");
    assertThat(row.get("due_time").toString()).isEqualTo(T0.getEpochSecond() + ".000000000");
    assertThat(row.get("owner")).isNull();
  }

  /**
   * With a 2 s delay, a run is marked RUNNING only once it has lasted about that long (2 s: the
   * calls before the first look must fit in the delay on a slow machine).
   */
  @Test
  void startMarks_deferred_onlyLongRunsAreMarked() {
    JobStore s =
        database()
            .builder()
            .tablePrefix(nextPrefix())
            .startMarkDelay(Duration.ofSeconds(2))
            .build()
            .jobStore();
    try {
      s.upsert(
          JobRecord.fresh(JobSpec.named("short").handler("h").fixedRate(Duration.ofHours(1)), T0));
      s.upsert(
          JobRecord.fresh(JobSpec.named("long").handler("h").fixedRate(Duration.ofHours(1)), T0));
      s.runStarted("short", T0, T0, "i");
      s.runStarted("long", T0, T0, "i");
      JobRecord shortOne = s.find("short").orElseThrow();
      s.runFinished(
          new RunResult(
              new RunRecord("short", T0, T0, T0.plusMillis(5), RunOutcome.SUCCESS, null, 1, "i"),
              shortOne.version(),
              new ScheduleState(
                  JobState.SCHEDULED,
                  T0.plusSeconds(3600),
                  T0.plusSeconds(3600),
                  FireKind.TIMETABLE,
                  1)));

      assertThat(s.find("long").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> s.find("long").orElseThrow().state() == JobState.RUNNING);
      assertThat(s.find("short").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    } finally {
      s.close();
    }
  }
}
