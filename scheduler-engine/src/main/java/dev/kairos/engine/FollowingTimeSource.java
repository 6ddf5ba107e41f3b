package dev.kairos.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The system clock plus an offset to a reference clock (see {@link TimeSource#following}).
 *
 * <p>The offset is sampled by the first {@link #now()}, on the calling thread, then again every
 * {@code resample} on a short-lived daemon thread, so a slow or failing reference never blocks a
 * reader (the dispatcher reads the time under its lock). A sample takes the local time before and
 * after asking the reference and assumes the reference answered halfway. A failed sample keeps the
 * last offset (zero before the first success) and is retried after {@code resample}. A new offset
 * applies at once, so the time can step back by the change (milliseconds, normally); the dispatcher
 * only compares due times with it.
 */
final class FollowingTimeSource implements TimeSource {
  private static final Logger log = LoggerFactory.getLogger(FollowingTimeSource.class);

  private final Supplier<Instant> reference;
  private final Duration resample;

  /** Reference minus local time, in nanoseconds. */
  private volatile long offsetNanos;

  /** System.nanoTime() when the last sample ended; valid once {@link #started}. */
  private volatile long sampledAt;

  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean sampling = new AtomicBoolean();

  /** True while the reference fails (logged once per failure streak). */
  private volatile boolean failing;

  /** True once a sample succeeded. */
  private volatile boolean known;

  FollowingTimeSource(Supplier<Instant> reference, Duration resample) {
    this.reference = reference;
    this.resample = resample;
  }

  @Override
  public Instant now() {
    if (started.compareAndSet(false, true)) {
      sampling.set(true);
      sample();
    } else if (System.nanoTime() - sampledAt >= resample.toNanos()
        && sampling.compareAndSet(false, true)) {
      Thread t = new Thread(this::sample, "kairos-clock-sample");
      t.setDaemon(true);
      t.start();
    }
    return SystemTimeSource.UTC.now().plusNanos(offsetNanos);
  }

  /** Call only with {@code sampling} set; clears it. */
  private void sample() {
    try {
      sampleOnce();
    } finally {
      sampling.set(false);
    }
  }

  /**
   * Samples the reference now, on the calling thread, whether or not another sample is under way
   * (both are valid; the later one stays): for a caller that found the reference disagreeing with
   * this clock (a claim the store refused as early after its clock stepped back) and must compute a
   * time with the corrected offset.
   */
  void resampleNow() {
    started.set(true);
    sampleOnce();
  }

  private void sampleOnce() {
    try {
      long before = System.nanoTime();
      Instant local = SystemTimeSource.UTC.now();
      Instant ref = reference.get();
      long roundTrip = System.nanoTime() - before;
      long offset = Duration.between(local.plusNanos(roundTrip / 2), ref).toNanos();
      if (failing || !known || Math.abs(offset - offsetNanos) > 1_000_000_000L) {
        log.info(
            "clock follows its reference: offset {} (sample round trip {} µs)",
            Duration.ofNanos(offset),
            roundTrip / 1000);
      }
      offsetNanos = offset;
      known = true;
      failing = false;
    } catch (RuntimeException e) {
      if (!failing) {
        log.warn(
            "reading the reference clock failed; keeping offset {} and retrying in {}",
            Duration.ofNanos(offsetNanos),
            resample,
            e);
      }
      failing = true;
    } finally {
      sampledAt = System.nanoTime();
    }
  }

  /** The current offset to the reference (for tests and logs). */
  Duration offset() {
    return Duration.ofNanos(offsetNanos);
  }

  @Override
  public long nanosUntil(Instant deadline) {
    Instant now = now();
    if (!deadline.isAfter(now)) {
      return 0;
    }
    try {
      return Math.max(1, Duration.between(now, deadline).toNanos());
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE - 1;
    }
  }

  @Override
  public String toString() {
    return "following(offset " + offset() + ", resampled every " + resample + ")";
  }
}
