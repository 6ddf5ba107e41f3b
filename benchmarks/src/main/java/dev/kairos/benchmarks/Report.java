package dev.kairos.benchmarks;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The markdown report: machine and settings, one section per scenario with a table of every product
 * and a table of each Kairos figure as a ratio to every other product of the same run, the targets
 * checked against the medians, and the JMH figures.
 */
final class Report {
  /** What the report says about the run as a whole. */
  record Context(
      String command,
      Options options,
      List<Product> products,
      Map<Product, String> unavailable,
      double loadStart,
      double loadEnd,
      Instant started,
      Instant finished) {}

  private final Context ctx;
  private final List<Result> results;
  private final List<Micro.Row> micro;
  private final StringBuilder out = new StringBuilder();

  Report(Context ctx, List<Result> results, List<Micro.Row> micro) {
    this.ctx = ctx;
    this.results = results;
    this.micro = micro;
  }

  String render() {
    out.append("# Kairos benchmark report\n\n");
    out.append("Generated ")
        .append(ctx.finished().truncatedTo(ChronoUnit.SECONDS))
        .append(" by `java -jar benchmarks/target/kairos-benchmarks.jar ")
        .append(ctx.command())
        .append("` in ")
        .append(Math.round((ctx.finished().toEpochMilli() - ctx.started().toEpochMilli()) / 60e3))
        .append(" min.\n\n");
    machine();
    Settings.describe(out, ctx.options());
    unavailable();
    throughput();
    lateness();
    scale();
    growth();
    new Targets(this).render(out);
    micro();
    return out.toString();
  }

  // ---- lookup ----------------------------------------------------------------------------------

  List<Result> of(Scenario s, int jobs) {
    return results.stream().filter(r -> r.scenario() == s && r.jobs() == jobs).toList();
  }

  TreeSet<Integer> sizes(Scenario s) {
    TreeSet<Integer> sizes = new TreeSet<>();
    results.stream().filter(r -> r.scenario() == s).forEach(r -> sizes.add(r.jobs()));
    return sizes;
  }

  Optional<Double> median(Scenario s, Product p, int jobs, String metric) {
    return results.stream()
        .filter(r -> r.scenario() == s && r.product() == p && r.jobs() == jobs)
        .findFirst()
        .flatMap(r -> r.spread(metric))
        .map(Result.Spread::median);
  }

  // ---- sections --------------------------------------------------------------------------------

  private void machine() {
    Table t = new Table("machine", "").text();
    t.row("cores", Integer.toString(Meter.cores()));
    t.row(
        "memory", String.format(Locale.ROOT, "%.1f GiB", Meter.totalMemoryBytes() / 1073741824.0));
    t.row("CPU", Settings.cpuModel());
    t.row(
        "Java",
        System.getProperty("java.version")
            + " ("
            + System.getProperty("java.vm.name")
            + ", "
            + System.getProperty("java.vendor")
            + ")");
    t.row(
        "OS",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    t.row(
        "load average (1 min) at start / end",
        Table.num(ctx.loadStart()) + " / " + Table.num(ctx.loadEnd()));
    out.append(t.render()).append('\n');
  }

  private void unavailable() {
    if (ctx.unavailable().isEmpty()) {
      return;
    }
    out.append("Not measured:\n\n");
    ctx.unavailable()
        .forEach(
            (p, why) ->
                out.append("- ")
                    .append(p.title())
                    .append(" (`")
                    .append(p.id())
                    .append("`): ")
                    .append(why)
                    .append('\n'));
    out.append('\n');
  }

  private void throughput() {
    if (sizes(Scenario.THROUGHPUT).isEmpty()) {
      return;
    }
    out.append("## 1. Throughput\n\n")
        .append("N one-shot no-op jobs, all due at the same instant, scheduled before `start()`;")
        .append(" executions per second from `start()` until the last one ran. Scheduling rate")
        .append(" (jobs/s, before start) apart. Median of the runs (min–max).\n\n");
    for (int n : sizes(Scenario.THROUGHPUT)) {
      out.append("### N = ").append(String.format(Locale.ROOT, "%,d", n)).append("\n\n");
      boolean counted =
          of(Scenario.THROUGHPUT, n).stream()
              .anyMatch(r -> r.spread(Metric.STATEMENTS_PER_RUN).isPresent());
      Table t =
          counted
              ? new Table(
                  "product",
                  "runs/s",
                  "scheduling, jobs/s",
                  "CPU µs per run",
                  "statements per run",
                  "commits per run")
              : new Table("product", "runs/s", "scheduling, jobs/s", "CPU µs per run");
      for (Result r : of(Scenario.THROUGHPUT, n)) {
        if (failed(t, r)) {
          continue;
        }
        if (counted) {
          t.row(
              r.product().title(),
              Table.spread(r.spread(Metric.RUNS_PER_SEC)),
              Table.median(r.spread(Metric.SCHEDULED_PER_SEC)),
              Table.median(r.spread(Metric.CPU_US_PER_RUN)),
              Table.median(r.spread(Metric.STATEMENTS_PER_RUN)),
              Table.median(r.spread(Metric.COMMITS_PER_RUN)));
        } else {
          t.row(
              r.product().title(),
              Table.spread(r.spread(Metric.RUNS_PER_SEC)),
              Table.median(r.spread(Metric.SCHEDULED_PER_SEC)),
              Table.median(r.spread(Metric.CPU_US_PER_RUN)));
        }
      }
      out.append(t.render()).append('\n');
      ratios(Scenario.THROUGHPUT, n, Metric.RUNS_PER_SEC, "runs/s; above 1×: Kairos faster");
    }
  }

  private void lateness() {
    if (sizes(Scenario.LATENESS).isEmpty()) {
      return;
    }
    out.append("## 2. Lateness\n\n")
        .append("Jobs on a 1 s fixed rate, phases spread evenly over the second, measured for ")
        .append(ctx.options().duration().toSeconds())
        .append(" s after ")
        .append(ctx.options().settle().toSeconds())
        .append(" s of settling. Lateness = actual start (wall clock, inside the job) −")
        .append(" the scheduled fire time the product hands the job. CPU is the whole process's")
        .append(
            " over the window, per fire and in cores. Median of the runs (min–max). ∞: more than")
        .append(" 1% (p99) or 50% (p50) of the expected fires had not run a period after the")
        .append(" window closed (the product fell behind).\n\n");
    for (int n : sizes(Scenario.LATENESS)) {
      out.append("### ").append(String.format(Locale.ROOT, "%,d", n)).append(" jobs\n\n");
      Table t = latenessTable(Scenario.LATENESS, n);
      out.append(t.render()).append('\n');
      ratios(Scenario.LATENESS, n, Metric.P99_MS, "p99 lateness; below 1×: Kairos less late");
      ratios(
          Scenario.LATENESS, n, Metric.CPU_US_PER_FIRE, "CPU per fire; below 1×: Kairos cheaper");
    }
  }

  private Table latenessTable(Scenario s, int n) {
    boolean counted =
        of(s, n).stream().anyMatch(r -> r.spread(Metric.STATEMENTS_PER_RUN).isPresent());
    List<String> head =
        new ArrayList<>(
            List.of(
                "product",
                "p50 ms",
                "p99 ms",
                "max ms",
                "executed / expected",
                "CPU µs per fire",
                "CPU, cores"));
    if (counted) {
      head.addAll(List.of("statements per fire", "commits per fire"));
    }
    Table t = new Table(head.toArray(String[]::new));
    for (Result r : of(s, n)) {
      if (failed(t, r)) {
        continue;
      }
      List<String> row =
          new ArrayList<>(
              List.of(
                  r.product().title(),
                  Table.spread(r.spread(Metric.P50_MS)),
                  Table.spread(r.spread(Metric.P99_MS)),
                  Table.spread(r.spread(Metric.MAX_MS)),
                  Table.median(r.spread(Metric.EXECUTED))
                      + " / "
                      + Table.median(r.spread(Metric.EXPECTED)),
                  Table.spread(r.spread(Metric.CPU_US_PER_FIRE)),
                  Table.median(r.spread(Metric.CPU_CORES))));
      if (counted) {
        row.add(Table.median(r.spread(Metric.STATEMENTS_PER_RUN)));
        row.add(Table.median(r.spread(Metric.COMMITS_PER_RUN)));
      }
      t.row(row.toArray(String[]::new));
    }
    return t;
  }

  private void scale() {
    if (sizes(Scenario.SCALE).isEmpty()) {
      return;
    }
    out.append("## 3. Scale\n\n")
        .append("One-shot jobs due a day ahead, scheduled into a started instance: scheduling")
        .append(" rate and heap after full GC above the started, empty instance. Persistent")
        .append(" products: the instance is closed, a fresh one is built over the same store,")
        .append(" one job due now is added, and the time from `start()` to its run is measured,")
        .append(" with the fresh instance's heap above the heap before it was built.\n\n");
    for (int n : sizes(Scenario.SCALE)) {
      out.append("### ").append(String.format(Locale.ROOT, "%,d", n)).append(" jobs\n\n");
      Table t =
          new Table(
              "product",
              "scheduling, jobs/s",
              "heap MB above baseline",
              "fresh instance: start → first fire, ms",
              "fresh instance: heap MB");
      for (Result r : of(Scenario.SCALE, n)) {
        if (failed(t, r)) {
          continue;
        }
        t.row(
            r.product().title(),
            Table.spread(r.spread(Metric.SCHEDULED_PER_SEC)),
            Table.spread(r.spread(Metric.HEAP_MB)),
            Table.spread(r.spread(Metric.FIRST_FIRE_MS)),
            Table.spread(r.spread(Metric.RESTART_HEAP_MB)));
      }
      out.append(t.render()).append('\n');
      ratios(
          Scenario.SCALE, n, Metric.SCHEDULED_PER_SEC, "scheduling rate; above 1×: Kairos faster");
      ratios(Scenario.SCALE, n, Metric.HEAP_MB, "heap; below 1×: Kairos smaller");
    }
  }

  private void growth() {
    TreeSet<Integer> sizes = sizes(Scenario.GROWTH);
    if (sizes.isEmpty()) {
      return;
    }
    out.append("## 4. Growth\n\n")
        .append("Scenario 2 (1,000 jobs on a 1 s fixed rate) among more scheduled jobs: the")
        .append(" others are on a 1 h fixed rate, first due 3–4 minutes ahead (inside Kairos's")
        .append(" look-ahead, so in its heap), and do not fire during the window.\n\n");
    for (int n : sizes) {
      out.append("### ").append(String.format(Locale.ROOT, "%,d", n)).append(" scheduled jobs\n\n");
      out.append(latenessTable(Scenario.GROWTH, n).render()).append('\n');
      ratios(Scenario.GROWTH, n, Metric.P99_MS, "p99 lateness; below 1×: Kairos less late");
      ratios(Scenario.GROWTH, n, Metric.CPU_US_PER_FIRE, "CPU per fire; below 1×: Kairos cheaper");
    }
    if (sizes.size() > 1) {
      int lo = sizes.first();
      int hi = sizes.last();
      out.append("### Growth from ")
          .append(String.format(Locale.ROOT, "%,d to %,d", lo, hi))
          .append(" scheduled jobs\n\n");
      Table t = new Table("product", "p99 ratio", "CPU per fire ratio");
      for (Product p : ctx.products()) {
        Optional<Double> p99 = grow(p, lo, hi, Metric.P99_MS);
        Optional<Double> cpu = grow(p, lo, hi, Metric.CPU_US_PER_FIRE);
        if (p99.isPresent() || cpu.isPresent()) {
          t.row(p.title(), p99.map(Table::ratio).orElse("–"), cpu.map(Table::ratio).orElse("–"));
        }
      }
      out.append(t.render()).append('\n');
    }
  }

  Optional<Double> grow(Product p, int lo, int hi, String metric) {
    return median(Scenario.GROWTH, p, hi, metric)
        .flatMap(h -> median(Scenario.GROWTH, p, lo, metric).map(l -> h / l));
  }

  private void micro() {
    if (micro.isEmpty()) {
      return;
    }
    out.append("## Microbenchmarks (JMH)\n\n")
        .append("1 warm-up and 2 measured iterations of 1 s, one fork (short settings; the")
        .append(" classes' own settings are longer). Score ± 99.9% error where JMH gives one.\n\n");
    Table t = new Table("benchmark", "params", "score", "unit");
    for (Micro.Row r : micro) {
      t.row(
          "`" + r.benchmark() + "`",
          r.params(),
          Double.isNaN(r.error())
              ? Table.num(r.score())
              : Table.num(r.score()) + " ± " + Table.num(r.error()),
          r.unit());
    }
    out.append(t.render()).append('\n');
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static boolean failed(Table t, Result r) {
    if (!r.runs().isEmpty()) {
      return false;
    }
    t.row(r.product().title(), "failed: " + r.error().replace('|', '/'));
    return true;
  }

  /** Each Kairos product's median of {@code metric} divided by every other product's. */
  private void ratios(Scenario s, int n, String metric, String meaning) {
    List<Result> all = of(s, n).stream().filter(r -> r.spread(metric).isPresent()).toList();
    List<Result> kairos = all.stream().filter(r -> r.product().isKairos()).toList();
    if (kairos.isEmpty() || all.size() < 2) {
      return;
    }
    List<String> header = new ArrayList<>();
    header.add("Kairos ÷ (" + meaning + ")");
    all.forEach(r -> header.add(r.product().id()));
    Table t = new Table(header.toArray(String[]::new));
    for (Result k : kairos) {
      List<String> row = new ArrayList<>();
      row.add(k.product().title());
      double mine = k.spread(metric).get().median();
      for (Result other : all) {
        double theirs = other.spread(metric).get().median();
        boolean comparable = !Double.isInfinite(mine) && !Double.isInfinite(theirs);
        row.add(other == k ? "" : comparable ? Table.ratio(mine / theirs) : "–");
      }
      t.row(row.toArray(String[]::new));
    }
    out.append(t.render()).append('\n');
  }
}
