package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.StoreException;
import dev.kairos.jdbc.internal.JdbcJobStore;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
import dev.kairos.tck.JobStoreContract;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bulk writes of a {@link JobStore} ({@code upsertAll}, {@code deleteAll}), stated once and run
 * against each store: they must do exactly what the single-row methods do, one call per batch.
 */
abstract class BulkStoreContract {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");

  private final List<JobStore> opened = new ArrayList<>();

  /** A new, empty store, not yet opened. */
  protected abstract JobStore newStore();

  /** What this store's {@link JobStore#parallelUpserts()} should say: 1 unless overridden. */
  protected int expectedParallelUpserts() {
    return 1;
  }

  /** A new store, opened, closed after the test. */
  JobStore open() {
    JobStore s = newStore();
    opened.add(s);
    s.open();
    return s;
  }

  @AfterEach
  void closeStores() {
    opened.forEach(JobStore::close);
  }

  static JobSpec spec(String key) {
    return JobSpec.named(key).handler("h").fixedRate(Duration.ofMinutes(1));
  }

  static JobRecord fresh(JobSpec spec, Instant due) {
    return JobRecord.fresh(spec, due);
  }

  /** Waits at the barrier (30 s at most), so that the calls start together. */
  static void await(java.util.concurrent.CyclicBarrier start) {
    try {
      start.await(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Jobs "same" and "changed" stored and run once; "changed" then paused. */
  static void prepare(JobStore s) {
    for (String key : List.of("same", "changed")) {
      JobRecord r = s.upsert(fresh(spec(key), T0)).record();
      s.runFinished(JobStoreContract.success(r));
    }
    JobRecord c = s.find("changed").orElseThrow();
    s.replace(
        c.withSchedule(JobState.PAUSED, c.nextFireTime(), null, FireKind.TIMETABLE, 1),
        c.version());
  }

  static List<JobRecord> batch() {
    return List.of(
        fresh(spec("same"), T0.plusSeconds(600)),
        fresh(spec("changed").fixedRate(Duration.ofMinutes(5)), T0.plusSeconds(900)),
        fresh(spec("new"), T0.plusSeconds(300)));
  }

  /** Per job, upsertAll is upsert: same results, same stored rows, same versions. */
  @Test
  void upsertAll_matchesUpsertOneByOne() {
    JobStore single = open();
    JobStore bulk = open();
    prepare(single);
    prepare(bulk);

    List<Upsert> one = batch().stream().map(single::upsert).toList();
    List<Upsert> all = bulk.upsertAll(batch());

    // Versions are compared apart: each store gives a created job its own first version.
    assertThat(all.stream().map(u -> versionless(u.record())).toList())
        .isEqualTo(one.stream().map(u -> versionless(u.record())).toList());
    assertThat(all)
        .extracting(Upsert::change)
        .containsExactly(Upsert.Change.UNCHANGED, Upsert.Change.UPDATED, Upsert.Change.CREATED);
    assertThat(bulk.findAll().stream().map(BulkStoreContract::versionless).toList())
        .isEqualTo(single.findAll().stream().map(BulkStoreContract::versionless).toList());
    assertThat(bulk.find("new").orElseThrow().version()).isPositive();
    JobRecord same = bulk.find("same").orElseThrow();
    assertThat(same.runCount()).isEqualTo(1);
    assertThat(same.nextFireTime()).isEqualTo(T0.plusSeconds(60)); // state kept
    JobRecord changed = bulk.find("changed").orElseThrow();
    assertThat(changed.state()).isEqualTo(JobState.SCHEDULED); // replaced
    assertThat(changed.dueTime()).isEqualTo(T0.plusSeconds(900));
    assertThat(changed.runCount()).isEqualTo(1); // statistics kept
  }

  /**
   * Batches of new keys and batches that hold existing ones, in turn (the JDBC store inserts a
   * batch as new jobs first unless the last batch it looked at held existing keys, and looks them
   * up again when a key exists): each batch's results and stored rows are exact, whichever way the
   * store went.
   */
  @Test
  void upsertAll_newAndExistingKeysInTurn_eachBatchExact() {
    JobStore s = open();
    List<List<String>> batches =
        List.of(
            List.of("a1", "a2", "a3"), // new
            List.of("a2", "b1"), // one exists
            List.of("c1", "c2"), // new, after a batch that held an existing key
            List.of("d1", "d2"), // new again
            List.of("c2", "d1", "a1")); // all exist
    java.util.Set<String> stored = new java.util.HashSet<>();
    for (List<String> keys : batches) {
      List<JobRecord> batch =
          keys.stream().map(k -> fresh(spec(k), T0.plusSeconds(k.hashCode() & 0xff))).toList();

      List<Upsert> out = s.upsertAll(batch);

      assertThat(out).extracting(u -> u.record().key()).as("batch %s", keys).isEqualTo(keys);
      for (Upsert u : out) {
        assertThat(u.change())
            .as("%s in batch %s", u.record().key(), keys)
            .isEqualTo(
                stored.contains(u.record().key())
                    ? Upsert.Change.UNCHANGED
                    : Upsert.Change.CREATED);
      }
      stored.addAll(keys);
      assertThat(s.findAll())
          .extracting(JobRecord::key)
          .containsExactlyInAnyOrderElementsOf(stored);
    }
    for (String key : stored) {
      JobRecord r = s.find(key).orElseThrow();
      assertThat(r.spec()).isEqualTo(spec(key));
      assertThat(r.dueTime()).as(key).isEqualTo(T0.plusSeconds(key.hashCode() & 0xff));
    }
  }

  /**
   * Every kind of definition, and instants at the edges of the stored encoding (nanoseconds, before
   * 1970, past 2262), come back exactly from the batched insert, the batched definition update and
   * the write-back, as they do from the single-row {@code upsert}.
   */
  @Test
  void upsertAllAndWriteBack_roundTripEveryDefinitionAndEdgeInstant() {
    JobStore s = open();
    List<Instant> edges =
        List.of(
            T0.plusNanos(1),
            Instant.parse("1969-12-31T23:59:59.999999999Z"),
            Instant.parse("1600-01-01T00:00:00.000000001Z"),
            Instant.parse("2262-04-11T23:47:16.854775808Z"),
            Instant.parse("9999-12-31T23:59:59.999999999Z"));
    List<JobSpec> specs =
        JobStoreContract.definitions().map(a -> (JobSpec) a.get()[0]).toList(); // key "job"
    for (int i = 0; i < specs.size(); i++) {
      Instant due = edges.get(i % edges.size());
      JobRecord r = fresh(specs.get(i), due);
      r.spec()
          .calendar()
          .ifPresent(
              c -> s.putCalendar(c, dev.kairos.BusinessCalendar.in(java.time.ZoneOffset.UTC)));
      List<JobRecord> batch = new ArrayList<>(List.of(r, fresh(spec("other"), due)));
      assertThat(s.upsertAll(batch)).allMatch(u -> u.change() == Upsert.Change.CREATED);
      assertThat(s.find("job").orElseThrow().spec()).isEqualTo(r.spec());
      assertThat(s.find("job").orElseThrow().dueTime()).isEqualTo(due);

      // A changed definition goes through the batched update.
      JobRecord c = fresh(r.spec().data("changed " + i), due.minusNanos(1));
      assertThat(s.upsertAll(List.of(c)).get(0).change()).isEqualTo(Upsert.Change.UPDATED);
      assertThat(s.find("job").orElseThrow().spec()).isEqualTo(c.spec());
      assertThat(s.find("job").orElseThrow().dueTime()).isEqualTo(due.minusNanos(1));
      s.deleteAll(List.of("job", "other"));
    }
    List<JobRecord> records = new ArrayList<>();
    for (int i = 0; i < edges.size(); i++) {
      records.add(fresh(spec("at-" + i).at(edges.get(i)), edges.get(i)));
    }
    s.upsertAll(records);
    for (JobRecord r : records) {
      JobRecord stored = s.find(r.key()).orElseThrow();
      assertThat(stored.spec()).as(r.key()).isEqualTo(r.spec());
      assertThat(stored.dueTime()).as(r.key()).isEqualTo(r.dueTime());
    }

    // The write-back's batched row update and history insert.
    JobRecord run = s.find("at-4").orElseThrow();
    s.runFinished(JobStoreContract.success(run));
    JobRecord after = s.find("at-4").orElseThrow();
    assertThat(after.lastScheduledFireTime()).isEqualTo(run.dueTime());
    assertThat(after.runCount()).isEqualTo(1);
  }

  @Test
  void parallelUpserts_saysWhatTheDatabaseGainsFrom() {
    assertThat(open().parallelUpserts()).isEqualTo(expectedParallelUpserts());
  }

  /**
   * Where the engine makes upsertAll calls side by side: two threads, each with batches of keys of
   * its own (half of them stored before, so the update path locks rows too), all at once, rounds
   * over. Every call succeeds (no deadlock between them) and every job is stored as given.
   */
  @Test
  void upsertAll_twoCallsSideBySide_disjointKeys_allStored() throws Exception {
    assumeTrue(expectedParallelUpserts() > 1, "this store takes one call at a time");
    JobStore s = open();
    int perCall = 1_000;
    for (int round = 0; round < 4; round++) {
      List<List<JobRecord>> calls = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int base = round * perCall / 2; // half the keys of the round before, half new
        List<JobRecord> batch = new ArrayList<>();
        for (int i = 0; i < perCall; i++) {
          String key = String.format("t%d-k%06d", t, base + i);
          batch.add(fresh(spec(key).fixedRate(Duration.ofSeconds(round + 1)), T0));
        }
        calls.add(batch);
      }
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
      List<java.util.concurrent.CompletableFuture<List<Upsert>>> running = new ArrayList<>();
      for (List<JobRecord> batch : calls) {
        running.add(
            java.util.concurrent.CompletableFuture.supplyAsync(
                () -> {
                  await(start);
                  return s.upsertAll(batch);
                }));
      }
      for (var f : running) {
        assertThat(f.get(60, java.util.concurrent.TimeUnit.SECONDS)).hasSize(perCall);
      }
      for (List<JobRecord> batch : calls) {
        for (JobRecord r : List.of(batch.get(0), batch.get(perCall - 1))) {
          assertThat(s.find(r.key()).orElseThrow().spec()).isEqualTo(r.spec());
        }
      }
    }
    assertThat(s.findAll()).hasSize(2 * (3 * perCall / 2 + perCall));
  }

  /**
   * Three calls upsert the same 600 new keys at once, each in its own shuffled order and in chunks
   * of 200 (as instances starting together and scheduling their jobs do), five rounds over: every
   * call succeeds, every key is created exactly once among them and found unchanged by the others,
   * and every job is stored.
   */
  @Test
  void upsertAll_racingCallsOnTheSameKeys_eachKeyCreatedOnce() throws Exception {
    JobStore s = open();
    int keys = 600;
    for (int round = 0; round < 5; round++) {
      Map<String, java.util.concurrent.atomic.AtomicInteger> created =
          new java.util.concurrent.ConcurrentHashMap<>();
      List<Upsert.Change> others = java.util.Collections.synchronizedList(new ArrayList<>());
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(3);
      List<java.util.concurrent.CompletableFuture<Void>> calls = new ArrayList<>();
      for (int c = 0; c < 3; c++) {
        List<JobRecord> mine = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
          mine.add(fresh(spec(String.format("r%d-k%04d", round, i)), T0));
        }
        java.util.Collections.shuffle(mine, new java.util.Random(round * 3L + c));
        calls.add(
            java.util.concurrent.CompletableFuture.runAsync(
                () -> {
                  await(start);
                  for (int from = 0; from < keys; from += 200) {
                    for (Upsert u : s.upsertAll(mine.subList(from, from + 200))) {
                      if (u.change() == Upsert.Change.CREATED) {
                        created
                            .computeIfAbsent(
                                u.record().key(),
                                k -> new java.util.concurrent.atomic.AtomicInteger())
                            .incrementAndGet();
                      } else {
                        others.add(u.change());
                      }
                    }
                  }
                }));
      }
      for (var f : calls) {
        f.get(120, java.util.concurrent.TimeUnit.SECONDS);
      }
      assertThat(created).as("keys created, round %d", round).hasSize(keys);
      assertThat(created.entrySet().stream().filter(e -> e.getValue().get() != 1).toList())
          .as("keys created more than once")
          .isEmpty();
      assertThat(others).hasSize(2 * keys).containsOnly(Upsert.Change.UNCHANGED);
    }
    assertThat(s.findAll()).hasSize(5 * keys);
  }

  /** More keys than one IN list holds; all come back in order, due in (due time, key) order. */
  @Test
  void upsertAll_largeBatch_storesEveryJob_inOneCall() {
    JobStore s = open();
    List<JobRecord> records =
        IntStream.range(0, 2_500)
            .mapToObj(i -> fresh(spec(String.format("k%05d", i)), T0.plusMillis(2_500 - i)))
            .toList();

    List<Upsert> out = s.upsertAll(records);

    assertThat(out).hasSize(2_500).allMatch(u -> u.change() == Upsert.Change.CREATED);
    assertThat(out.get(1_234).record().key()).isEqualTo("k01234");
    List<JobRecord> due = s.due(null, T0.plusSeconds(10), 10_000);
    assertThat(due).hasSize(2_500);
    assertThat(due.get(0).key()).isEqualTo("k02499");
    assertThat(s.due(new WindowCursor(T0.plusMillis(1_000), "k01500"), T0.plusSeconds(10), 3))
        .extracting(JobRecord::key)
        .containsExactly("k01499", "k01498", "k01497");

    assertThat(s.upsertAll(records)).allMatch(u -> u.change() == Upsert.Change.UNCHANGED);
  }

  @Test
  void upsertAll_empty_returnsEmpty() {
    assertThat(open().upsertAll(List.of())).isEmpty();
    assertThat(open().deleteAll(List.of())).isEmpty();
  }

  /** A batch the database rejects in part writes none of it. */
  @Test
  void upsertAll_oneRowRejected_writesNothing() {
    JobStore s = open();
    assumeTrue(s instanceof JdbcJobStore, "only a database rejects a row (key wider than 200)");
    s.upsert(fresh(spec("old"), T0));
    List<JobRecord> batch =
        List.of(
            fresh(spec("a"), T0),
            fresh(spec("old").fixedDelay(Duration.ofSeconds(1)), T0),
            fresh(spec("x".repeat(300)), T0));

    assertThatThrownBy(() -> s.upsertAll(batch)).isInstanceOf(StoreException.class);

    assertThat(s.findAll()).extracting(JobRecord::key).containsExactly("old");
    assertThat(s.find("old").orElseThrow().spec()).isEqualTo(spec("old"));
  }

  /** Other instances learn of bulk writes through the change feed, as of single ones. */
  @Test
  void upsertAllAndDeleteAll_reachTheChangeFeed() {
    JobStore s = open();
    assumeTrue(s instanceof JdbcJobStore, "the JDBC store keeps its change feed in every mode");
    ClusterStore feed = (ClusterStore) s;
    s.upsert(fresh(spec("gone"), T0));
    long cursor = feed.changeCursor();

    s.upsertAll(List.of(fresh(spec("a"), T0), fresh(spec("b"), T0)));
    s.deleteAll(List.of("gone", "unknown"));

    ClusterStore.Changes changes = feed.changesSince(cursor, 100);
    assertThat(changes.changed()).extracting(JobRecord::key).containsExactlyInAnyOrder("a", "b");
    assertThat(changes.deleted()).containsExactly("gone");
  }

  @Test
  void deleteAll_deletesKnownKeys_withHistory_returnsThem() {
    JobStore s = open();
    for (String key : List.of("a", "b", "c")) {
      s.runFinished(JobStoreContract.success(s.upsert(fresh(spec(key), T0)).record()));
    }

    List<String> deleted = s.deleteAll(List.of("c", "unknown", "a"));

    assertThat(deleted).containsExactlyInAnyOrder("a", "c");
    assertThat(s.findAll()).extracting(JobRecord::key).containsExactly("b");
    assertThat(s.history("a", 10)).isEmpty();
    assertThat(s.history("b", 10)).hasSize(1);
    s.upsert(fresh(spec("a"), T0)); // the key can be used again
    assertThat(s.find("a").orElseThrow().runCount()).isZero();
  }

  @Test
  void deleteAll_largeBatch_deletesEveryKey() {
    JobStore s = open();
    List<JobRecord> records =
        IntStream.range(0, 2_100).mapToObj(i -> fresh(spec("k" + i), T0)).toList();
    s.upsertAll(records);

    List<String> keys = records.stream().map(JobRecord::key).toList();
    assertThat(s.deleteAll(keys)).hasSize(2_100);
    assertThat(s.findAll()).isEmpty();
  }

  private static JobRecord versionless(JobRecord r) {
    return r.withVersion(0);
  }
}
