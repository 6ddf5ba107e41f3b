package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.WindowCursor;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real workers on a {@link ManualClock} over a store whose window reads order keys as a database
 * with a language collation does (case and punctuation ignored first, as en_US.UTF-8): hundreds of
 * one-shot and fixed-rate jobs share due instants, windows of eight rows split those instants
 * between pages, and the test thread schedules more one-shots at the next instants while the
 * workers load pages and finish runs. Each instant is reached by moving the clock; the test waits
 * (bounded) for the fires it must bring, so a lost fire fails it, and in the end every one-shot ran
 * exactly once and every fixed-rate job once per slot, so a double fire fails it too.
 */
class StoreKeyOrderStressTest {
  private static final Instant T0 = Harness.T0;
  private static final int STEPS = 30;
  private static final String[] SHAPES = {"job-%d", "Job_%d", "JOB.%d", "job%d", "j-O-b%d"};

  /** (due, key) with case and the punctuation {@code -_.} ignored first, then the whole key. */
  private static final Comparator<WindowCursor> LANGUAGE_ORDER =
      Comparator.comparing(WindowCursor::dueTime)
          .thenComparing(c -> c.key().replaceAll("[-_.]", "").toLowerCase(Locale.ROOT))
          .thenComparing(WindowCursor::key);

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4})
  void everyFireRunsOnce_whenPagesSplitSharedInstantsInAnotherKeyOrder(long seed) {
    Random random = new Random(seed);
    ManualClock clock = new ManualClock(T0);
    Map<String, AtomicInteger> fired = new ConcurrentHashMap<>();
    Map<String, Integer> expected = new HashMap<>(); // key -> fires expected by the last step
    Map<String, int[]> due = new HashMap<>(); // key -> {first instant, period (0: one-shot)}
    JobStore store =
        StoreKeyOrderTest.collatingStore(
            new InMemoryStore(10, false), LANGUAGE_ORDER, new AtomicReference<>());
    // The first jobs are in the store before the scheduler opens, as after a restart: its loads
    // read them page by page.
    KairosScheduler writer =
        Engines.build(Kairos.builder().store(store).clock(clock).handler("h", ctx -> {}));
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .clock(clock)
                .workers(4)
                .windowSize(8)
                .handler(
                    "h",
                    ctx ->
                        fired
                            .computeIfAbsent(ctx.key(), k -> new AtomicInteger())
                            .incrementAndGet()));
    try {
      int n = 0;
      for (int i = 0; i < 120; i++) { // fixed rates of 1-3 s from instants 1-5
        String key = String.format(SHAPES[random.nextInt(SHAPES.length)], n++);
        int period = 1 + random.nextInt(3);
        int start = 1 + random.nextInt(5);
        writer.schedule(
            JobSpec.named(key)
                .handler("h")
                .fixedRate(Duration.ofSeconds(period))
                .startAt(T0.plusSeconds(start)));
        expected.put(key, (STEPS - start) / period + 1);
        due.put(key, new int[] {start, period});
      }
      n = scheduleOneShots(writer, random, due, expected, n, 1, 200);
      s.start();
      for (int step = 1; step <= STEPS; step++) {
        // More one-shots at the next instants, the coming one included: the window's pages have
        // gone on into it while the last instant's fires ran, so a page ends among its jobs.
        n = scheduleOneShots(s, random, due, expected, n, step, 30);
        clock.set(T0.plusSeconds(step));
        int reached = step;
        await()
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(2))
            .untilAsserted(
                () -> {
                  for (Map.Entry<String, int[]> e : due.entrySet()) {
                    AtomicInteger f = fired.get(e.getKey());
                    assertThat(f == null ? 0 : f.get())
                        .as("fires of %s by instant %d", e.getKey(), reached)
                        .isGreaterThanOrEqualTo(dueBy(e.getValue(), reached));
                  }
                });
      }
    } finally {
      s.close();
    }
    Map<String, Integer> actual = new HashMap<>();
    fired.forEach((k, v) -> actual.put(k, v.get()));
    assertThat(actual).isEqualTo(expected);
  }

  /**
   * Schedules up to count one-shots due at instants step to step + 2 (not after the last), with
   * mixed key shapes; returns the next key number.
   */
  private static int scheduleOneShots(
      KairosScheduler s,
      Random random,
      Map<String, int[]> due,
      Map<String, Integer> expected,
      int n,
      int step,
      int count) {
    for (int i = 0; i < count; i++) {
      int at = step + random.nextInt(3);
      if (at > STEPS) {
        continue;
      }
      String key = String.format(SHAPES[random.nextInt(SHAPES.length)], n++);
      s.schedule(JobSpec.named(key).handler("h").at(T0.plusSeconds(at)));
      due.put(key, new int[] {at, 0});
      expected.put(key, 1);
    }
    return n;
  }

  /** Fires due by instant step of a job first due at due[0], every due[1] s (0: once). */
  private static int dueBy(int[] due, int step) {
    if (step < due[0]) {
      return 0;
    }
    return due[1] == 0 ? 1 : (step - due[0]) / due[1] + 1;
  }
}
