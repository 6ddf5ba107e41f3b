package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Property (issue #15): for random misfire and overlap policies, run lengths and outages, the
 * history accounts for every scheduled slot exactly once: a run for its own slot, or for the {@code
 * missedFires()} slots ending at it ({@code fireOnce} coalescing), or a {@link RunOutcome#SKIPPED}
 * entry for the slots a policy dropped. A fixed rate of 100 ms, driven by a {@code ManualClock}
 * (handlers advance it to take time; outages advance it with nothing running).
 */
class SlotAccountingPropertyTest {
  private static final long PERIOD_MS = 100;

  @Test
  void everySlotIsAccountedForExactlyOnce() {
    long seed = System.nanoTime();
    for (int trial = 0; trial < 200; trial++) {
      check(new SplittableRandom(seed + trial), "seed " + seed + " trial " + trial);
    }
  }

  private static void check(SplittableRandom random, String what) {
    Misfire misfire = misfire(random).threshold(Duration.ofMillis(random.nextInt(0, 400)));
    Overlap overlap =
        List.of(Overlap.forbid(), Overlap.bufferOne(), Overlap.skip(), Overlap.allow(2))
            .get(random.nextInt(4));
    Harness[] h = new Harness[1];
    InMemoryStore store = new InMemoryStore(100_000, true);
    h[0] =
        new Harness(
            store,
            Kairos.builder(),
            ctx -> {
              // Mostly short, some overruns of a few periods; on average about half a period,
              // so that an unlimited catch-up catches up.
              int p = random.nextInt(100);
              long ms = p < 70 ? random.nextInt(0, 30) : p < 95 ? random.nextInt(30, 150) : 400;
              h[0].clock.advance(Duration.ofMillis(ms));
            });
    h[0].scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(Duration.ofMillis(PERIOD_MS))
            .misfire(misfire)
            .overlap(overlap));
    Instant t = Harness.T0;
    for (int step = 0; step < 20; step++) {
      t = t.plusMillis(random.nextInt(100, 1500));
      h[0].runUntil(t);
      t = h[0].clock.now().isAfter(t) ? h[0].clock.now() : t; // runs take time
      if (random.nextInt(4) == 0) { // an outage: time passes, nothing runs
        t = t.plusMillis(random.nextInt(100, 3000));
        h[0].clock.set(t);
      }
    }
    h[0].runUntil(t);

    String policies = what + ", " + misfire + ", overlap " + overlap;
    TreeMap<Long, String> covered = new TreeMap<>();
    List<RunRecord> history = new ArrayList<>(store.history("j", 100_000));
    assertThat(history).as(policies).isNotEmpty();
    for (RunRecord r : history) {
      long at = Harness.ms(r.scheduledFireTime());
      long first;
      long count;
      if (r.outcome() == RunOutcome.SKIPPED) {
        first = at;
        count = r.missedFires();
      } else {
        count = Math.max(1, r.missedFires());
        first = at - (count - 1) * PERIOD_MS;
      }
      for (long i = 0; i < count; i++) {
        long slot = first + i * PERIOD_MS;
        String by = r.outcome() + "@" + at;
        String before = covered.put(slot, by);
        assertThat(before).as("%s: slot %d by %s and %s", policies, slot, before, by).isNull();
      }
    }
    long last = covered.lastKey();
    assertThat(covered.firstKey()).as(policies).isZero();
    assertThat(covered)
        .as("%s: every slot up to %d once", policies, last)
        .hasSize((int) (last / PERIOD_MS + 1));
  }

  private static Misfire misfire(SplittableRandom random) {
    return misfire(random, Duration.ofMillis(50), Duration.ofMillis(1000));
  }

  /** A random misfire policy; a catch-up window, if any, between the two bounds. */
  static Misfire misfire(SplittableRandom random, Duration shortestWindow, Duration longestWindow) {
    return switch (random.nextInt(5)) {
      case 0 -> Misfire.catchUp();
      case 1 -> Misfire.catchUp(1 + random.nextInt(4));
      case 2 ->
          Misfire.catchUp()
              .within(
                  Duration.ofMillis(
                      random.nextLong(shortestWindow.toMillis(), longestWindow.toMillis())));
      case 3 -> Misfire.fireOnce();
      default -> Misfire.skip();
    };
  }
}
