package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.StartMark;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which queued entries a start-mark batch covers ({@link Dispatcher#markBatch}, {@link
 * Dispatcher#markAhead}): only entries already due, {@code SCHEDULED}, with a registered handler,
 * each once per version; the maker writes its batch once; mark-ahead only when few are covered.
 * Deterministic: a manual clock, no worker threads.
 */
class MarkBatchTest {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");
  static final Predicate<JobRecord> ALL = r -> !r.spec().handler().equals("unknown");

  ManualClock clock;
  Dispatcher dispatcher;

  @BeforeEach
  void setUp() {
    clock = new ManualClock(T0);
    dispatcher = new Dispatcher(clock, 10_000);
  }

  private void load(List<JobRecord> rows) {
    Instant until = T0.plus(Duration.ofDays(1));
    dispatcher.beginLoad(until);
    dispatcher.endLoad(rows, until, null, until);
  }

  private static JobRecord job(String key, Instant due) {
    return JobRecord.fresh(JobSpec.named(key).handler("h").at(due), due);
  }

  private static List<JobRecord> due(int n, String prefix, Instant at) {
    List<JobRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(job(String.format("%s%03d", prefix, i), at));
    }
    return out;
  }

  private Entry take() throws InterruptedException {
    Entry e = dispatcher.poll();
    assertThat(e).isNotNull().isNotSameAs(Dispatcher.LOAD);
    return e;
  }

  /** The batch, written by its maker (as a worker writes its own). */
  private static MarkBatch written(MarkBatch b) {
    assertThat(b.claimWrite()).isTrue();
    b.complete(true);
    return b;
  }

  private static Set<String> keys(MarkBatch b) {
    Set<String> out = new HashSet<>();
    for (StartMark m : b.marks) {
      out.add(m.key());
    }
    return out;
  }

  @Test
  void markBatch_coversTheRunningEntryAndDueEntriesOnly() throws Exception {
    List<JobRecord> rows = new ArrayList<>(due(100, "due-", T0));
    rows.addAll(due(10, "later-", T0.plusSeconds(1)));
    rows.add(
        job("unknown-handler", T0)
            .withSpec(JobSpec.named("unknown-handler").handler("unknown").at(T0)));
    JobRecord paused = job("paused", T0);
    rows.add(paused.withSchedule(JobState.PAUSED, T0, T0, FireKind.TIMETABLE, 1));
    load(rows);

    Entry first = take();
    MarkBatch b = dispatcher.markBatch(first, 64, 0, ALL);

    assertThat(b.marks).hasSize(64);
    assertThat(keys(b)).contains(first.key).allMatch(k -> k.startsWith("due-"));
    assertThat(b.marks).allSatisfy(m -> assertThat(m.version()).isEqualTo(rows.get(0).version()));
    // the maker writes it once; a second look (another worker, or the maker later) waits instead
    assertThat(b.claimWrite()).isTrue();
    assertThat(b.claimWrite()).isFalse();
    assertThat(CompletableFuture.supplyAsync(b::claimWrite).get()).isFalse();
    b.complete(true);

    Entry second = take();
    assertThat(keys(b)).contains(second.key);
    assertThat(dispatcher.markBatch(second, 64, 0, ALL)).isSameAs(b);
    assertThat(b.await()).isTrue();
  }

  /**
   * Entries whose row a caller's open transaction holds, or that a change is being written for,
   * stay out of other entries' batches (their row lock would hold up every mark of the batch) until
   * the hold is released and the change has ended.
   */
  @Test
  void heldOrChangingEntries_leftOutOfBatches_untilReleased() throws Exception {
    load(due(10, "due-", T0));
    dispatcher.holdForCaller(List.of("due-003"));
    dispatcher.holdForCaller(List.of("due-003")); // a second change in the same transaction
    dispatcher.changing(List.of("due-005"));

    MarkBatch ahead = dispatcher.markAhead(64, 32, 0, ALL);
    assertThat(keys(ahead)).hasSize(8).doesNotContain("due-003", "due-005");
    assertThat(dispatcher.heldForCaller("due-003")).isTrue();
    assertThat(dispatcher.heldForCaller("due-004")).isFalse();

    dispatcher.changeEnded(List.of("due-005"));
    dispatcher.releaseForCaller(List.of("due-003"));
    assertThat(dispatcher.heldForCaller("due-003")).as("held twice, released once").isTrue();
    MarkBatch next = dispatcher.markAhead(64, 32, 0, ALL);
    assertThat(keys(next)).containsExactly("due-005");

    dispatcher.releaseForCaller(List.of("due-003"));
    assertThat(dispatcher.heldForCaller("due-003")).isFalse();
    assertThat(dispatcher.anyHeldForCaller()).isFalse();
    assertThat(keys(dispatcher.markAhead(64, 32, 0, ALL))).containsExactly("due-003");
  }

  @Test
  void markAhead_onlyWhenFewAreCovered_neverTwice() throws Exception {
    load(due(200, "due-", T0));
    Entry first = take();
    MarkBatch b = written(dispatcher.markBatch(first, 64, 0, ALL));

    // 63 due entries covered ahead: no mark-ahead yet
    assertThat(dispatcher.markAhead(64, 32, 0, ALL)).isNull();
    for (int i = 0; i < 40; i++) { // 23 covered left
      dispatcher.finish(take(), null);
    }
    MarkBatch ahead = dispatcher.markAhead(64, 32, 0, ALL);
    assertThat(ahead).isNotNull();
    assertThat(ahead.claimWrite()).as("written by the mark-ahead writer, not a worker").isFalse();
    assertThat(ahead.marks).hasSize(64);
    Set<String> overlap = new HashSet<>(keys(ahead));
    overlap.retainAll(keys(b));
    assertThat(overlap).isEmpty();
    // now 87 covered: no further batch until they are taken
    assertThat(dispatcher.markAhead(64, 32, 0, ALL)).isNull();
  }

  @Test
  void markedNotRun_listsWrittenMarksOfQueuedEntriesOnly() throws Exception {
    load(due(10, "due-", T0));
    Entry first = take();
    MarkBatch b = dispatcher.markBatch(first, 4, 0, ALL);
    assertThat(dispatcher.markedNotRun()).as("not written yet").isEmpty();
    b.claimWrite();
    b.complete(true);

    List<StartMark> unrun = dispatcher.markedNotRun();

    assertThat(unrun).hasSize(3).noneMatch(m -> m.key().equals(first.key));
    Set<String> expected = keys(b);
    expected.remove(first.key);
    assertThat(unrun).extracting(StartMark::key).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void markedNotRun_includesAnEntryTakenButClosedBeforeItsRun() throws Exception {
    load(due(10, "due-", T0));
    Entry first = take();
    MarkBatch b = written(dispatcher.markBatch(first, 4, 0, ALL));
    assertThat(dispatcher.beginRun(first)).as("the first runs").isNotNull();
    Entry second = take(); // covered by the first's batch, taken before close ...
    assertThat(keys(b)).contains(second.key);

    dispatcher.shutdown(); // ... which comes before its run starts
    assertThat(dispatcher.beginRun(second)).isNull();
    dispatcher.finish(second, null);
    dispatcher.finish(first, null); // it ran: its mark is its write-back's (or a recovery's)

    Set<String> expected = keys(b);
    expected.remove(first.key);
    assertThat(dispatcher.markedNotRun())
        .extracting(StartMark::key)
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void horizon_marksEntriesDueWithinItOnly() throws Exception {
    List<JobRecord> rows = new ArrayList<>(due(1, "now-", T0));
    rows.addAll(due(5, "soon-", T0.plusMillis(50)));
    rows.addAll(due(5, "later-", T0.plusMillis(51)));
    load(rows);
    Entry first = take();

    MarkBatch b = dispatcher.markBatch(first, 64, 50_000_000L, ALL);

    assertThat(keys(b)).hasSize(6).allMatch(k -> k.startsWith("now-") || k.startsWith("soon-"));
  }

  @Test
  void notYetDue_isNeverMarked() throws Exception {
    List<JobRecord> rows = new ArrayList<>(due(1, "now-", T0));
    rows.addAll(due(50, "soon-", T0.plusMillis(1)));
    load(rows);
    Entry first = take();

    MarkBatch b = dispatcher.markBatch(first, 64, 0, ALL);

    assertThat(keys(b)).containsExactly(first.key);
    assertThat(dispatcher.markAhead(64, 32, 0, ALL)).isNull();
    clock.advance(Duration.ofMillis(1));
    assertThat(dispatcher.markAhead(64, 32, 0, ALL)).isNotNull();
  }
}
