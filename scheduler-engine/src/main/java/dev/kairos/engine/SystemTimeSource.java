package dev.kairos.engine;

import java.time.Duration;
import java.time.Instant;

/** The system clock, optionally offset or accelerated. The only place that reads real time. */
final class SystemTimeSource implements TimeSource {
  static final SystemTimeSource UTC = new SystemTimeSource(Duration.ZERO, 1.0, null);

  private final Duration offset;
  private final double speed;
  private final Instant origin;
  private final long originNanos;

  /** True if this clock runs at real-time speed (whatever its offset). */
  boolean realTime() {
    return speed == 1.0;
  }

  SystemTimeSource(Duration offset, double speed, Instant origin) {
    this.offset = offset;
    this.speed = speed;
    this.origin = origin;
    this.originNanos = System.nanoTime();
  }

  @Override
  public Instant now() {
    if (origin == null) {
      return Instant.now().plus(offset);
    }
    long elapsed = (long) ((System.nanoTime() - originNanos) * speed);
    return origin.plusNanos(elapsed);
  }

  @Override
  public long nanosUntil(Instant deadline) {
    Instant now = now();
    if (!deadline.isAfter(now)) {
      return 0;
    }
    long nanos;
    try {
      nanos = Duration.between(now, deadline).toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE - 1;
    }
    return Math.max(1, (long) (nanos / speed));
  }

  @Override
  public String toString() {
    if (origin != null) {
      return "accelerated(x" + speed + " from " + origin + ")";
    }
    return offset.isZero() ? "system" : "system" + (offset.isNegative() ? "" : "+") + offset;
  }
}
