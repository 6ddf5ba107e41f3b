package dev.kairos.benchmarks;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Scenario 1: {@code jobs} one-shot no-op jobs, all due at the same instant, scheduled while the
 * product is not started; then the product is started and the clock runs until the last one has
 * run. Executions per second are counted from {@code start()}; the scheduling rate is reported
 * apart.
 */
final class Throughput {
  private Throughput() {}

  static Map<String, Double> run(Product product, Options o, int jobs) throws Exception {
    Probe probe = new Probe(jobs, 0);
    try (Adapter adapter = product.open(o)) {
      Adapter.Instance instance = adapter.instance(probe);
      boolean closed = false;
      try {
        Instant due = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        long s0 = System.nanoTime();
        for (int i = 0; i < jobs; i++) {
          instance.oneShot("job-" + i, due);
        }
        long s1 = System.nanoTime();
        long cpu0 = Meter.cpuNanos();
        long t0 = System.nanoTime();
        Counting.reset();
        instance.start();
        long t1 = probe.await(o.timeout().toNanos());
        long cpu1 = Meter.cpuNanos();
        if (t1 < 0) {
          throw new TimeoutException(
              probe.runs() + " of " + jobs + " jobs ran within " + o.timeout().toSeconds() + " s");
        }
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(Metric.RUNS_PER_SEC, jobs / ((t1 - t0) / 1e9));
        m.put(Metric.SCHEDULED_PER_SEC, jobs / ((s1 - s0) / 1e9));
        m.put(Metric.CPU_US_PER_RUN, (cpu1 - cpu0) / 1e3 / jobs);
        instance.close(); // its write-backs counted too
        closed = true;
        if (Counting.enabled() && Counting.STATEMENTS.sum() > 0) {
          m.put(Metric.STATEMENTS_PER_RUN, Counting.STATEMENTS.sum() / (double) jobs);
          m.put(Metric.COMMITS_PER_RUN, Counting.COMMITS.sum() / (double) jobs);
        }
        return m;
      } finally {
        if (!closed) {
          instance.close();
        }
      }
    }
  }
}
