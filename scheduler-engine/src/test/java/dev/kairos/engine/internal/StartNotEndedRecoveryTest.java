package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Overlap;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a scheduler finds after a crash cut off a run of a paused job (single instance): the row
 * stays {@code PAUSED}, so the run's mark is its start with no end ({@code
 * RunStats.startNotEnded}), and the next run of that fire — the trigger at once, the timetable's
 * fire at {@code resume()} — is flagged {@code ctx.recovery()}. Each row is written as the killed
 * scheduler left it; a new scheduler then opens the store.
 */
class StartNotEndedRecoveryTest {
  private static final Instant T0 = Harness.T0;
  private final InMemoryStore store = new InMemoryStore();
  private Harness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.scheduler.close();
    }
  }

  /** Writes the job's row in {@code state}, due at {@code due} ({@code kind}), next fire T0. */
  private void row(JobSpec spec, JobState state, Instant due, FireKind kind) {
    JobRecord fresh = store.upsert(JobRecord.fresh(spec, T0)).record();
    store.replace(fresh.withSchedule(state, T0, due, kind, 1), fresh.version()).orElseThrow();
  }

  /** The killed scheduler's start mark of a run that began at {@code start}, by key. */
  private void startedAt(Instant start) {
    store.runStarted("j", T0, start, "killed");
  }

  private static JobSpec hourly() {
    return JobSpec.named("j").handler("h").fixedRate(Duration.ofHours(1));
  }

  @Test
  void triggerOfAPausedJob_cutOffByACrash_runsAgainAsARecovery() {
    row(hourly(), JobState.PAUSED, T0, FireKind.TRIGGER);
    startedAt(T0);
    assertThat(store.find("j").orElseThrow().state()).isEqualTo(JobState.PAUSED);

    h = new Harness(store, ctx -> {});
    h.runUntil(T0.plusSeconds(1));

    // Before, a PAUSED row said nothing of the run: it ran again without the flag.
    assertThat(h.runs).singleElement().satisfies(c -> assertThat(c.recovery()).isTrue());
    assertThat(h.runs.get(0).scheduledFireTime()).isEqualTo(T0);
    assertThat(store.find("j").orElseThrow().state()).isEqualTo(JobState.PAUSED);
    assertThat(store.find("j").orElseThrow().stats().startNotEnded()).isFalse();
  }

  @Test
  void runPausedWhileGoing_cutOffByACrash_runsAgainAtResume_asARecovery() {
    row(hourly(), JobState.PAUSED, null, FireKind.TIMETABLE);
    startedAt(T0);

    h = new Harness(store, ctx -> {});
    h.runUntil(T0.plusSeconds(5));
    assertThat(h.runs).as("paused: nothing runs").isEmpty();

    h.scheduler.resume("j");
    h.runUntil(T0.plusSeconds(6));

    assertThat(h.runs).singleElement().satisfies(c -> assertThat(c.recovery()).isTrue());
    assertThat(h.runs.get(0).scheduledFireTime()).isEqualTo(T0);

    h.runUntil(T0.plusSeconds(3601));
    assertThat(h.runs).hasSize(2);
    assertThat(h.runs.get(1).recovery()).as("the next fire is an ordinary one").isFalse();
  }

  @Test
  void scheduledRowWithAStartNotEnded_runsAsARecovery() {
    // A change joined to the caller's transaction wrote SCHEDULED over a run's RUNNING mark.
    row(hourly(), JobState.SCHEDULED, T0, FireKind.TIMETABLE);
    startedAt(T0);
    JobRecord marked = store.find("j").orElseThrow();
    store
        .replace(
            marked.withSchedule(marked.schedule().withState(JobState.SCHEDULED)), marked.version())
        .orElseThrow();

    h = new Harness(store, ctx -> {});
    h.runUntil(T0.plusSeconds(1));

    assertThat(h.runs).singleElement().satisfies(c -> assertThat(c.recovery()).isTrue());
  }

  @Test
  void pausedRowWhoseLastRunEnded_isNoRecovery() {
    row(hourly(), JobState.PAUSED, T0, FireKind.TRIGGER);

    h = new Harness(store, ctx -> {});
    h.runUntil(T0.plusSeconds(1));

    assertThat(h.runs).singleElement().satisfies(c -> assertThat(c.recovery()).isFalse());
  }

  @Test
  void jobWhoseRunsMayOverlap_isNotRecoveredByItsLastStart() {
    // allow(n) records each run it starts and recovers those; its last start says nothing.
    JobSpec overlapping =
        JobSpec.named("j").handler("h").fixedRate(Duration.ofHours(1)).overlap(Overlap.allow(2));
    row(overlapping, JobState.PAUSED, T0, FireKind.TRIGGER);
    startedAt(T0);

    h = new Harness(store, ctx -> {});
    h.runUntil(T0.plusSeconds(1));

    assertThat(h.runs).singleElement().satisfies(c -> assertThat(c.recovery()).isFalse());
  }
}
