package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The heap holds only the jobs due within the look-ahead horizon, loaded window by window. */
class LookAheadWindowTest {

  @Test
  void heapHoldsOnlyTheHorizon_andEveryJobStillFiresOnceInOrder() {
    InMemoryStore store = new InMemoryStore();
    Harness h = new Harness(store, Kairos.builder().lookAhead(Duration.ofHours(1)), ctx -> {});
    for (int i = 0; i < 1000; i++) { // one job every 15 minutes for 10.4 days
      h.scheduler.schedule(
          JobSpec.named(String.format("j%04d", i))
              .handler("h")
              .at(Harness.T0.plus(Duration.ofMinutes(15L * i))));
    }
    assertThat(h.scheduler.queued()).isBetween(4, 5);

    int maxQueued = 0;
    Instant end = Harness.T0.plus(Duration.ofDays(11));
    while (h.clock.now().isBefore(end)) {
      h.runUntil(h.clock.now().plus(Duration.ofMinutes(5)));
      maxQueued = Math.max(maxQueued, h.scheduler.queued());
    }

    assertThat(h.runs).extracting(c -> c.key()).hasSize(1000).isSorted().doesNotHaveDuplicates();
    assertThat(h.runs).allMatch(c -> c.actualStart().equals(c.scheduledFireTime()));
    assertThat(maxQueued).isLessThanOrEqualTo(5);
  }

  @Test
  void jobScheduledInsideTheHorizon_goesStraightIntoTheHeap_oneOutsideDoesNot() {
    Harness h =
        new Harness(
            new InMemoryStore(), Kairos.builder().lookAhead(Duration.ofHours(1)), ctx -> {});

    h.scheduler.schedule(JobSpec.named("soon").handler("h").after(Duration.ofMinutes(59)));
    assertThat(h.scheduler.queued()).isEqualTo(1);
    h.scheduler.schedule(JobSpec.named("later").handler("h").after(Duration.ofMinutes(61)));
    assertThat(h.scheduler.queued()).isEqualTo(1);

    h.runUntil(Harness.T0.plus(Duration.ofHours(2)));
    assertThat(h.starts()).containsExactly(59 * 60_000L, 61 * 60_000L);
  }

  @Test
  void moreDueJobsThanTheWindowSize_allFire_heapStaysBounded() {
    Harness h = new Harness(new InMemoryStore(), Kairos.builder().windowSize(10), ctx -> {});
    for (int i = 0; i < 100; i++) {
      h.scheduler.schedule(
          JobSpec.named(String.format("j%03d", i)).handler("h").at(Harness.T0.plusSeconds(10)));
    }
    // Reopen over the same store: the first load stops at the window size.
    Harness h2 = new Harness(storeOf(h), Kairos.builder().windowSize(10), ctx -> {});
    assertThat(h2.scheduler.queued()).isEqualTo(10);

    h2.runUntil(Harness.T0.plusSeconds(10));

    assertThat(h2.runs).hasSize(100);
    assertThat(h2.runs).extracting(c -> c.key()).isSorted();
  }

  private static InMemoryStore storeOf(Harness h) {
    return (InMemoryStore) h.store;
  }
}
