package dev.kairos.benchmarks;

import java.util.Optional;
import java.util.TreeSet;

/** The targets, checked against the medians of the report. */
final class Targets {
  private final Report report;
  private final Table table = new Table("target", "measured", "verdict");

  Targets(Report report) {
    this.report = report;
  }

  void render(StringBuilder out) {
    for (int n : report.sizes(Scenario.THROUGHPUT)) {
      String at = " (N = " + String.format("%,d", n) + ")";
      atLeast("in memory ≥ 0.5× STPE throughput" + at, Product.KAIROS_MEM, Product.STPE, n, 0.5);
      atLeast(
          "in memory ≥ 5× Quartz RAM throughput" + at,
          Product.KAIROS_MEM,
          Product.QUARTZ_RAM,
          n,
          5);
      atLeast("H2 ≥ 2× db-scheduler H2 throughput" + at, Product.KAIROS_H2, Product.DBS_H2, n, 2);
      atLeast(
          "H2 ≥ 50× Quartz JDBC H2 throughput" + at, Product.KAIROS_H2, Product.QUARTZ_H2, n, 50);
      atLeast("PG ≥ 2× db-scheduler PG throughput" + at, Product.KAIROS_PG, Product.DBS_PG, n, 2);
      atLeast(
          "PG clustered(true), one instance, ≥ 1.5× db-scheduler PG throughput" + at,
          Product.KAIROS_PG_CLUSTER,
          Product.DBS_PG,
          n,
          1.5);
      atLeast(
          "PG ≥ 50× Quartz JDBC PG throughput" + at, Product.KAIROS_PG, Product.QUARTZ_PG, n, 50);
    }
    for (int n : report.sizes(Scenario.LATENESS)) {
      atMost(
          "in memory lateness p99 ≤ 2 ms",
          Product.KAIROS_MEM,
          Scenario.LATENESS,
          n,
          Metric.P99_MS,
          2);
      atMost("H2 lateness p99 ≤ 5 ms", Product.KAIROS_H2, Scenario.LATENESS, n, Metric.P99_MS, 5);
      atMost("PG lateness p99 ≤ 10 ms", Product.KAIROS_PG, Scenario.LATENESS, n, Metric.P99_MS, 10);
    }
    for (int n : report.sizes(Scenario.SCALE)) {
      atMost(
          "PG: heap < 64 MB above baseline",
          Product.KAIROS_PG,
          Scenario.SCALE,
          n,
          Metric.HEAP_MB,
          64);
      atMost(
          "PG: fresh instance heap < 64 MB",
          Product.KAIROS_PG,
          Scenario.SCALE,
          n,
          Metric.RESTART_HEAP_MB,
          64);
      atMost(
          "PG: first fire ≤ 100 ms after start()",
          Product.KAIROS_PG,
          Scenario.SCALE,
          n,
          Metric.FIRST_FIRE_MS,
          100);
    }
    TreeSet<Integer> sizes = report.sizes(Scenario.GROWTH);
    if (sizes.size() > 1) {
      for (Product p : new Product[] {Product.KAIROS_MEM, Product.KAIROS_H2, Product.KAIROS_PG}) {
        growth(p, sizes.first(), sizes.last(), Metric.P99_MS, "p99");
        growth(p, sizes.first(), sizes.last(), Metric.CPU_US_PER_FIRE, "CPU per fire");
      }
    }
    if (table.isEmpty()) {
      return;
    }
    out.append("## Targets\n\nChecked against the medians above.\n\n")
        .append(table.render())
        .append('\n');
  }

  private void atLeast(String what, Product kairos, Product other, int n, double min) {
    Optional<Double> k = report.median(Scenario.THROUGHPUT, kairos, n, Metric.RUNS_PER_SEC);
    Optional<Double> o = report.median(Scenario.THROUGHPUT, other, n, Metric.RUNS_PER_SEC);
    if (k.isEmpty() || o.isEmpty()) {
      return;
    }
    double r = k.get() / o.get();
    table.row(what, Table.ratio(r), verdict(r >= min, r / min));
  }

  private void atMost(String what, Product p, Scenario s, int n, String metric, double max) {
    Optional<Double> v = report.median(s, p, n, metric);
    if (v.isEmpty()) {
      return;
    }
    table.row(what, Table.num(v.get()), verdict(v.get() <= max, max / v.get()));
  }

  private void growth(Product p, int lo, int hi, String metric, String name) {
    Optional<Double> r = report.grow(p, lo, hi, metric);
    if (r.isEmpty()) {
      return;
    }
    table.row(
        p.title()
            + ": "
            + name
            + " at "
            + String.format("%,d", hi)
            + " ≤ 1.5× of "
            + String.format("%,d", lo),
        Table.ratio(r.get()),
        verdict(r.get() <= 1.5, 1.5 / r.get()));
  }

  /**
   * "met", or "missed" with how far off: {@code achieved} is the fraction of the target reached.
   */
  private static String verdict(boolean met, double achieved) {
    return met
        ? "met"
        : String.format("**missed** (at %.0f%% of the target)", Math.max(0, achieved) * 100);
  }
}
