package dev.kairos.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Scenario 3: {@code jobs} one-shot jobs due a day ahead (spread over an hour), scheduled into a
 * started instance: the scheduling rate and the heap they take (after full GC, above the heap of
 * the started, empty instance). For a persistent product the instance is then closed, a fresh
 * instance is built over the same store, one job due now is added before it starts, and the time
 * from {@code start()} to that job's run is measured, with the fresh instance's heap above the heap
 * measured before it was built.
 */
final class Scale {
  private static final double MB = 1024.0 * 1024.0;

  private Scale() {}

  static Map<String, Double> run(Product product, Options o, int jobs) throws Exception {
    Map<String, Double> m = new LinkedHashMap<>();
    try (Adapter adapter = product.open(o)) {
      Adapter.Instance first = adapter.instance(new Probe(0, 0));
      try {
        first.start();
        long base = Meter.heapAfterGc();
        Instant due = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.MILLIS);
        long s0 = System.nanoTime();
        for (int i = 0; i < jobs; i++) {
          first.oneShot("job-" + i, due.plusMillis(i % 3_600_000));
        }
        long s1 = System.nanoTime();
        m.put(Metric.SCHEDULED_PER_SEC, jobs / ((s1 - s0) / 1e9));
        m.put(Metric.HEAP_MB, (Meter.heapAfterGc() - base) / MB);
      } finally {
        first.close();
      }
      if (product.persistent()) {
        restart(adapter, o, m);
      }
    }
    return m;
  }

  private static void restart(Adapter adapter, Options o, Map<String, Double> m) throws Exception {
    long base = Meter.heapAfterGc();
    Probe probe = new Probe(1, 0);
    Adapter.Instance fresh = adapter.instance(probe);
    try {
      fresh.oneShot("due-now", Instant.now());
      long t0 = System.nanoTime();
      fresh.start();
      long t1 = probe.await(o.timeout().toNanos());
      if (t1 < 0) {
        throw new TimeoutException("a fresh instance did not fire the due job within the timeout");
      }
      m.put(Metric.FIRST_FIRE_MS, (t1 - t0) / 1e6);
      m.put(Metric.RESTART_HEAP_MB, (Meter.heapAfterGc() - base) / MB);
    } finally {
      fresh.close();
    }
  }
}
