package dev.kairos.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The measuring JVM: one product, one scenario, one job count. Warms up unmeasured (throughput:
 * full-size runs, at least one and for at least {@link #THROUGHPUT_WARM_UP}; other scenarios: one
 * smaller run), then makes the measured runs, each over a fresh store, and writes a {@link Result}.
 */
final class Child {
  private Child() {}

  static void run(Options o) throws Exception {
    Scenario scenario = o.scenarios().get(0);
    Product product = Product.byId(o.products().get(0));
    int jobs = o.jobs().get(0);
    List<Map<String, Double>> runs = new ArrayList<>();
    String error = null;
    try {
      warmUp(scenario, product, o, jobs);
      for (int i = 0; i < o.runs(); i++) {
        Map<String, Double> m = measure(scenario, product, o, jobs);
        System.out.printf("  %s %s %,d run %d: %s%n", scenario.id(), product.id(), jobs, i + 1, m);
        runs.add(m);
      }
    } catch (Exception | Error e) {
      e.printStackTrace();
      error = e.toString();
    }
    new Result(scenario, product, jobs, runs, error).write(o.resultFile());
  }

  /** Least time the unmeasured throughput runs take before the measured ones. */
  static final Duration THROUGHPUT_WARM_UP = Duration.ofSeconds(30);

  private static void warmUp(Scenario s, Product p, Options o, int jobs) throws Exception {
    switch (s) {
      case THROUGHPUT -> {
        // Full-size runs until the JIT has had THROUGHPUT_WARM_UP: on two cores its compiler
        // threads keep one core busy for the first ~25 s of a database product's child (measured
        // per thread), so a run inside that time measures the compiler as much as the product.
        long until = System.nanoTime() + THROUGHPUT_WARM_UP.toNanos();
        int warmUps = 0;
        do {
          Throughput.run(p, o, jobs);
          warmUps++;
        } while (System.nanoTime() < until);
        System.out.printf("  %s %s %,d: %d warm-up runs%n", s.id(), p.id(), jobs, warmUps);
      }
      case LATENESS, GROWTH -> Lateness.run(p, o, Math.min(jobs, 1_000), 0, o.warmup());
      case SCALE -> Scale.run(p, o, Math.min(jobs, 10_000));
      case MICRO -> throw new IllegalArgumentException("micro runs in JMH's own JVMs");
    }
  }

  private static Map<String, Double> measure(Scenario s, Product p, Options o, int jobs)
      throws Exception {
    System.gc();
    return switch (s) {
      case THROUGHPUT -> Throughput.run(p, o, jobs);
      case LATENESS -> Lateness.run(p, o, jobs, 0, o.duration());
      case GROWTH ->
          Lateness.run(p, o, Math.min(jobs, 1_000), Math.max(0, jobs - 1_000), o.duration());
      case SCALE -> Scale.run(p, o, jobs);
      case MICRO -> throw new IllegalArgumentException("micro runs in JMH's own JVMs");
    };
  }

  /** How long the parent lets a child run before giving up on it. */
  static Duration limit(Scenario s, Options o) {
    Duration perRun = o.timeout().plus(o.duration()).plus(o.settle()).plusMinutes(1);
    if (s == Scenario.GROWTH || s == Scenario.SCALE) {
      perRun = perRun.plus(o.timeout());
    }
    return perRun.multipliedBy(o.runs() + 1).plus(THROUGHPUT_WARM_UP);
  }
}
