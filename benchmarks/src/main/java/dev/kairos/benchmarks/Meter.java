package dev.kairos.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.time.Instant;

/** Process CPU time, heap after GC and waiting on the wall clock, for the scenarios. */
final class Meter {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private Meter() {}

  /** CPU time of the whole process (all threads, JIT and GC included), in nanoseconds. */
  static long cpuNanos() {
    return OS.getProcessCpuTime();
  }

  /** Used heap after full collections, in bytes. */
  static long heapAfterGc() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, MEMORY.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  /** Sleeps until the wall clock reaches {@code t}. */
  static void sleepUntil(Instant t) throws InterruptedException {
    for (; ; ) {
      long ms = Duration.between(Instant.now(), t).toMillis();
      if (ms <= 0) {
        return;
      }
      Thread.sleep(Math.min(ms, 1_000));
    }
  }

  /** The system load average over the last minute (-1 where unavailable). */
  static double loadAverage() {
    return OS.getSystemLoadAverage();
  }

  static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  static long totalMemoryBytes() {
    return OS.getTotalMemorySize();
  }
}
