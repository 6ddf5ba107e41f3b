package dev.kairos.benchmarks;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The scenarios the runner knows; {@code all} stands for every one of them. */
enum Scenario {
  /** N one-shot no-op jobs, all due now: executions per second until all have run. */
  THROUGHPUT("throughput", List.of(10_000, 100_000)),
  /** 1,000 jobs on a 1 s fixed rate: lateness percentiles and executions vs expected. */
  LATENESS("lateness", List.of(1_000)),
  /** 1,000,000 jobs a day ahead: scheduling rate, heap, and a fresh instance's first fire. */
  SCALE("scale", List.of(1_000_000)),
  /** Lateness and CPU per fire of 1,000 busy jobs among 1k, 10k and 100k scheduled jobs. */
  GROWTH("growth", List.of(1_000, 10_000, 100_000)),
  /** The JMH microbenchmarks (heap, misfire rule, cron), short settings. */
  MICRO("micro", List.of(0));

  private final String id;
  private final List<Integer> defaultJobs;

  Scenario(String id, List<Integer> defaultJobs) {
    this.id = id;
    this.defaultJobs = defaultJobs;
  }

  String id() {
    return id;
  }

  List<Integer> defaultJobs() {
    return defaultJobs;
  }

  /** Whether the scenario runs once per product (false: once in all, like the JMH suite). */
  boolean perProduct() {
    return this != MICRO;
  }

  static List<Scenario> parse(String s) {
    String id = s.trim().toLowerCase(Locale.ROOT);
    if (id.equals("all")) {
      return List.of(values());
    }
    return Arrays.stream(values())
        .filter(v -> v.id.equals(id))
        .findFirst()
        .map(List::of)
        .orElseThrow(() -> new IllegalArgumentException("unknown scenario '" + s + "'"));
  }
}
