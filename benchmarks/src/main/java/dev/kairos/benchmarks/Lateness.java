package dev.kairos.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scenarios 2 and 4: {@code active} jobs on a 1 s fixed rate, their phases spread evenly over the
 * second (job i first fires i/active s after a common anchor), measured over a window of {@code
 * duration} that opens {@code settle} after the last job was scheduled. For scenario 4, {@code
 * idle} more jobs are scheduled first on a 1 h fixed rate, first due 3 to 4 minutes later: inside
 * Kairos's 5-minute look-ahead, so they sit in its heap (and in every other product's queue or
 * table) without firing during the window.
 */
final class Lateness {
  static final Duration PERIOD = Duration.ofSeconds(1);
  private static final Duration IDLE_LEAD = Duration.ofMinutes(3);
  private static final Duration IDLE_SPREAD = Duration.ofMinutes(1);

  private Lateness() {}

  static Map<String, Double> run(
      Product product, Options o, int active, int idle, Duration duration) throws Exception {
    long expected = active * duration.toNanos() / PERIOD.toNanos();
    Probe probe = new Probe(0, (int) Math.min(Integer.MAX_VALUE - 16, expected * 2 + 1_000));
    try (Adapter adapter = product.open(o)) {
      Adapter.Instance instance = adapter.instance(probe);
      try {
        instance.start();
        Instant t0 = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Instant idleFrom = t0.plus(IDLE_LEAD);
        for (int i = 0; i < idle; i++) {
          Instant first = idleFrom.plusMillis(IDLE_SPREAD.toMillis() * i / idle);
          instance.fixedRate("idle-" + i, first, Duration.ofHours(1));
        }
        Instant anchor =
            latest(t0.plusSeconds(2), Instant.now().plusSeconds(1)).truncatedTo(ChronoUnit.MILLIS);
        for (int i = 0; i < active; i++) {
          Instant first = anchor.plusMillis(PERIOD.toMillis() * i / active);
          instance.fixedRate("job-" + i, first, PERIOD);
        }
        Instant from =
            latest(anchor, Instant.now()).plus(o.settle()).truncatedTo(ChronoUnit.SECONDS);
        Instant until = from.plus(duration);
        probe.window(from, until);
        Meter.sleepUntil(from);
        long cpu0 = Meter.cpuNanos();
        long runs0 = probe.runs();
        long statements0 = Counting.STATEMENTS.sum();
        long commits0 = Counting.COMMITS.sum();
        Meter.sleepUntil(until);
        long cpu1 = Meter.cpuNanos();
        long runs1 = probe.runs();
        long statements = Counting.STATEMENTS.sum() - statements0;
        long commits = Counting.COMMITS.sum() - commits0;
        Instant settled = until.plus(PERIOD).plus(o.pollInterval());
        Meter.sleepUntil(settled);
        if (idle > 0 && idleFrom.isBefore(settled)) {
          throw new IllegalStateException(
              "scheduling took too long: the idle jobs came due before the window closed");
        }
        long[] late = probe.latenessMicros();
        long total = Math.max(expected, late.length);
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(Metric.P50_MS, percentile(late, total, 0.50) / 1e3);
        m.put(Metric.P99_MS, percentile(late, total, 0.99) / 1e3);
        m.put(Metric.MAX_MS, late.length == 0 ? Double.NaN : late[late.length - 1] / 1e3);
        m.put(Metric.EXECUTED, (double) probe.inWindow());
        m.put(Metric.EXPECTED, (double) expected);
        m.put(Metric.CPU_US_PER_FIRE, (cpu1 - cpu0) / 1e3 / Math.max(1, runs1 - runs0));
        m.put(Metric.CPU_CORES, (cpu1 - cpu0) / (double) duration.toNanos());
        if (Counting.enabled() && statements > 0) { // per fire of the window, as the CPU
          m.put(Metric.STATEMENTS_PER_RUN, statements / (double) Math.max(1, runs1 - runs0));
          m.put(Metric.COMMITS_PER_RUN, commits / (double) Math.max(1, runs1 - runs0));
        }
        return m;
      } finally {
        instance.close();
      }
    }
  }

  /**
   * Nearest-rank percentile of {@code total} fires of which {@code sorted} ran: a fire that never
   * ran within the window (plus a period) counts as infinitely late, so a product that falls behind
   * reports an infinite percentile instead of the lateness of the few fires it managed.
   */
  static double percentile(long[] sorted, long total, double q) {
    if (total == 0) {
      return Double.NaN;
    }
    long rank = Math.max(1, (long) Math.ceil(q * total));
    return rank > sorted.length ? Double.POSITIVE_INFINITY : sorted[(int) rank - 1];
  }

  private static Instant latest(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
