package dev.kairos.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A clock that follows a reference clock (see {@link TimeSource#following}): the reference's time
 * at the last sample, counted on in monotonic time.
 *
 * <p>The reference is sampled by the first {@link #now()}, on the calling thread, then again every
 * {@code resample} on a short-lived daemon thread, so a slow or failing reference never blocks a
 * reader (the dispatcher reads the time under its lock). A sample takes the local time before and
 * after asking the reference and assumes the reference answered halfway. Between samples the time
 * runs on the monotonic clock, so a step of the local wall clock (an NTP correction) does not move
 * it; when the wall clock has moved more than {@link #STEP} apart from the monotonic one since the
 * last sample (a step, or a machine resumed from a pause, which the monotonic clock does not
 * count), the next {@code now()} starts a sample at once rather than at the period's end. A failed
 * sample keeps the last offset to the local wall clock (zero before the first success) and is
 * retried after {@code resample}. A new sample applies at once, so the time can step back by the
 * change (milliseconds, normally); the dispatcher only compares due times with it.
 */
final class FollowingTimeSource implements TimeSource {
  private static final Logger log = LoggerFactory.getLogger(FollowingTimeSource.class);

  /** How far the wall and monotonic clocks may drift apart before a sample is taken early. */
  static final Duration STEP = Duration.ofSeconds(1);

  private final Supplier<Instant> reference;
  private final Duration resample;
  private final Supplier<Instant> wall;
  private final LongSupplier monotonic;

  /**
   * The time at one monotonic instant, and the wall clock's then: {@link #now()} is {@code time}
   * plus the monotonic time since {@code mono}.
   */
  private record Base(Instant time, long mono, Instant wall) {}

  /** The last sample's base (the local wall clock before the first). */
  private volatile Base base;

  /** Reference minus local time, in nanoseconds, at the last successful sample. */
  private volatile long offsetNanos;

  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean sampling = new AtomicBoolean();

  /** True while the reference fails (logged once per failure streak). */
  private volatile boolean failing;

  /** True once a sample succeeded. */
  private volatile boolean known;

  FollowingTimeSource(Supplier<Instant> reference, Duration resample) {
    this(reference, resample, SystemTimeSource.UTC::now, System::nanoTime);
  }

  /** For tests: the local wall and monotonic clocks given. */
  FollowingTimeSource(
      Supplier<Instant> reference,
      Duration resample,
      Supplier<Instant> wall,
      LongSupplier monotonic) {
    this.reference = reference;
    this.resample = resample;
    this.wall = wall;
    this.monotonic = monotonic;
    Instant w = wall.get();
    this.base = new Base(w, monotonic.getAsLong(), w);
  }

  @Override
  public Instant now() {
    if (started.compareAndSet(false, true)) {
      sampling.set(true);
      sample();
    }
    Base b = base;
    long since = monotonic.getAsLong() - b.mono();
    if ((since >= resample.toNanos() || stepped(b, since)) && sampling.compareAndSet(false, true)) {
      Thread t = new Thread(this::sample, "kairos-clock-sample");
      t.setDaemon(true);
      t.start();
    }
    return b.time().plusNanos(since);
  }

  /** True if the wall clock has moved more than {@link #STEP} apart from the monotonic one. */
  private boolean stepped(Base b, long since) {
    long apart = Duration.between(b.wall().plusNanos(since), wall.get()).toNanos();
    return Math.abs(apart) > STEP.toNanos();
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
    long before = monotonic.getAsLong();
    Instant local = wall.get();
    try {
      Instant ref = reference.get();
      long roundTrip = monotonic.getAsLong() - before;
      Instant localMid = local.plusNanos(roundTrip / 2);
      long offset = Duration.between(localMid, ref).toNanos();
      if (failing || !known || Math.abs(offset - offsetNanos) > 1_000_000_000L) {
        log.info(
            "clock follows its reference: offset {} (sample round trip {} µs)",
            Duration.ofNanos(offset),
            roundTrip / 1000);
      }
      base = new Base(ref, before + roundTrip / 2, localMid);
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
      base = new Base(local.plusNanos(offsetNanos), before, local);
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
