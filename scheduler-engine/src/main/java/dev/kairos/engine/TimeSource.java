package dev.kairos.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The scheduler's only source of time, for reading it and for waiting on it. Every fire time, run
 * start, misfire judgement and wait goes through it, so a test can drive a scheduler with a {@link
 * ManualClock} and a demo can run faster than real time.
 */
public interface TimeSource {

  /**
   * The current instant.
   *
   * @return the current instant of this source
   */
  Instant now();

  /**
   * How many real nanoseconds to wait until this time source reaches {@code deadline}: zero or less
   * if it has; {@link Long#MAX_VALUE} if only an explicit advance can get it there (a manual
   * clock), in which case the source calls its listeners when it moves.
   *
   * @param deadline the instant to wait for
   * @return the real nanoseconds to wait: zero or less if reached, {@link Long#MAX_VALUE} if only
   *     an advance can reach it
   */
  long nanosUntil(Instant deadline);

  /**
   * Registers a callback run each time this source jumps forward (manual clocks only).
   *
   * @param onAdvance the callback, run on the thread that advances the clock
   */
  default void addListener(Runnable onAdvance) {}

  /**
   * Removes a callback registered with {@link #addListener}.
   *
   * @param onAdvance the callback to remove; nothing happens if it is not registered
   */
  default void removeListener(Runnable onAdvance) {}

  /**
   * Blocks the calling thread until this source has moved {@code duration} forward.
   *
   * @param duration how far this source must move
   * @throws InterruptedException if interrupted while waiting
   */
  default void sleep(Duration duration) throws InterruptedException {
    Instant deadline = now().plus(duration);
    long nanos;
    while ((nanos = nanosUntil(deadline)) > 0) {
      TimeUnit.NANOSECONDS.sleep(Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(50)));
    }
  }

  /**
   * The system's UTC clock, waiting in real time. The default.
   *
   * @return the system UTC time source
   */
  static TimeSource system() {
    return SystemTimeSource.UTC;
  }

  /**
   * The system clock shifted by {@code offset} (for example to test clock skew between instances).
   *
   * @param offset added to the system time; negative puts the clock behind
   * @return the shifted time source
   */
  static TimeSource offset(Duration offset) {
    return new SystemTimeSource(offset, 1.0, null);
  }

  /**
   * A clock that follows {@code reference}: now() is the reference's time at the last sample
   * (halving the sample's round trip) plus the monotonic time since, so a step of the local wall
   * clock does not move it. The reference is sampled at the first call, then every {@code resample}
   * in the background, and at once when the local wall clock has moved more than a second apart
   * from the monotonic one (a step, or a machine resumed from a pause). A failed sample keeps the
   * last offset to the local wall clock. Waits are in real time.
   *
   * <p>In cluster mode, to take fire times from the database's clock rather than each instance's
   * (so an instance whose clock runs ahead cannot fire early):
   *
   * <pre>{@code
   * JdbcStore store = JdbcStore.builder().url(url).clustered(true).build();
   * ClusterStore spi = store.jobStore();
   * Kairos.builder().store(store).clock(TimeSource.following(spi::storeNow, Duration.ofSeconds(10)))
   * }</pre>
   *
   * @param reference the clock to follow, for example the database's
   * @param resample how often the offset to the reference is sampled again
   * @return a time source that follows {@code reference}
   */
  static TimeSource following(Supplier<Instant> reference, Duration resample) {
    if (reference == null) {
      throw new IllegalArgumentException("reference clock is null");
    }
    if (resample == null || resample.isNegative() || resample.isZero()) {
      throw new IllegalArgumentException("resample interval must be positive: " + resample);
    }
    return new FollowingTimeSource(reference, resample);
  }

  /**
   * A clock that starts at the current instant and runs {@code speed} times faster than real time
   * (for demos: 3600 makes an hour pass each second). Waits are shortened accordingly.
   *
   * @param speed how many times faster than real time, positive and finite
   * @return the accelerated clock
   */
  static TimeSource accelerated(double speed) {
    return accelerated(Instant.now(), speed);
  }

  /**
   * A clock that starts at {@code origin} and runs {@code speed} times faster than real time.
   *
   * @param origin the clock's initial time
   * @param speed how many times faster than real time, positive and finite
   * @return the accelerated clock
   */
  static TimeSource accelerated(Instant origin, double speed) {
    if (!(speed > 0) || Double.isInfinite(speed)) {
      throw new IllegalArgumentException("speed must be positive and finite: " + speed);
    }
    return new SystemTimeSource(Duration.ZERO, speed, origin);
  }
}
