package dev.kairos.benchmarks;

/** Names of the figures a measuring JVM reports, one set per run. */
final class Metric {
  private Metric() {}

  static final String RUNS_PER_SEC = "runsPerSec";
  static final String SCHEDULED_PER_SEC = "scheduledPerSec";
  static final String CPU_US_PER_RUN = "cpuUsPerRun";
  static final String STATEMENTS_PER_RUN = "statementsPerRun";
  static final String COMMITS_PER_RUN = "commitsPerRun";
  static final String P50_MS = "p50Ms";
  static final String P99_MS = "p99Ms";
  static final String MAX_MS = "maxMs";
  static final String EXECUTED = "executed";
  static final String EXPECTED = "expected";
  static final String CPU_US_PER_FIRE = "cpuUsPerFire";
  static final String CPU_CORES = "cpuCores";
  static final String HEAP_MB = "heapMb";
  static final String RESTART_HEAP_MB = "restartHeapMb";
  static final String FIRST_FIRE_MS = "firstFireMs";
}
