package dev.kairos.benchmarks;

import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The body of every benchmark job, whatever the product: counts runs and records each run's
 * lateness (actual start by the wall clock minus the product's scheduled fire time) in a plain
 * array, no histogram library.
 *
 * <p>Lateness is sampled only for fires whose scheduled time lies in the measured window, so fires
 * of the settling period and late stragglers of the previous window are left out.
 */
final class Probe {
  private final AtomicLong runs = new AtomicLong();
  private final long target;
  private final CountDownLatch reached = new CountDownLatch(1);
  private volatile long reachedNanos;

  private final long[] samples;
  private final AtomicInteger sampled = new AtomicInteger();
  private volatile long windowFrom = Long.MIN_VALUE;
  private volatile long windowUntil = Long.MIN_VALUE;

  /**
   * @param target the run count whose time {@link #await} reports (0: none)
   * @param capacity most lateness samples kept
   */
  Probe(long target, int capacity) {
    this.target = target;
    this.samples = new long[capacity];
  }

  /** Samples lateness of fires scheduled in [{@code from}, {@code until}). */
  void window(Instant from, Instant until) {
    windowFrom = micros(from);
    windowUntil = micros(until);
  }

  /** One run started; {@code scheduled} is the fire time the product says it is running. */
  void fired(Instant scheduled) {
    fired(micros(scheduled));
  }

  /** As {@link #fired(Instant)}, with the scheduled time in microseconds since the epoch. */
  void fired(long scheduledMicros) {
    long now = micros(Instant.now());
    if (scheduledMicros >= windowFrom && scheduledMicros < windowUntil) {
      int i = sampled.getAndIncrement();
      if (i < samples.length) {
        samples[i] = now - scheduledMicros;
      }
    }
    if (runs.incrementAndGet() == target) {
      reachedNanos = System.nanoTime();
      reached.countDown();
    }
  }

  long runs() {
    return runs.get();
  }

  /**
   * Waits until the target run count is reached.
   *
   * @return {@link System#nanoTime()} when it was reached, or -1 on timeout
   */
  long await(long timeoutNanos) throws InterruptedException {
    return reached.await(timeoutNanos, TimeUnit.NANOSECONDS) ? reachedNanos : -1;
  }

  /** Runs of fires scheduled in the window. */
  long inWindow() {
    return sampled.get();
  }

  /** The lateness samples in microseconds, sorted. */
  long[] latenessMicros() {
    long[] copy = Arrays.copyOf(samples, Math.min(sampled.get(), samples.length));
    Arrays.sort(copy);
    return copy;
  }

  static long micros(Instant t) {
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
  }
}
