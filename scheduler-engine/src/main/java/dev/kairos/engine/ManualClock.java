package dev.kairos.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A clock that moves only when told to. Pass it to {@link Kairos.Builder#clock(TimeSource)} to test
 * schedules without sleeping: {@link #advance(Duration)} wakes the scheduler, which fires whatever
 * became due. Thread-safe.
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock(Instant.parse("2026-01-05T00:00:00Z"));
 * Scheduler s = Kairos.builder().clock(clock).handler("h", job).build();
 * s.start();
 * s.schedule(JobSpec.named("daily").handler("h").fixedRate(Duration.ofDays(1)));
 * clock.advance(Duration.ofDays(1)); // the job fires (on a worker thread)
 * }</pre>
 */
public final class ManualClock implements TimeSource {
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();
  private Instant now;

  /**
   * A clock standing at {@code start}.
   *
   * @param start the clock's initial time
   */
  public ManualClock(Instant start) {
    this.now = start;
  }

  @Override
  public Instant now() {
    synchronized (lock) {
      return now;
    }
  }

  /**
   * Moves the clock forward and wakes every waiter.
   *
   * @param duration how far to move, not negative
   */
  public void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a manual clock does not go back: " + duration);
    }
    synchronized (lock) {
      now = now.plus(duration);
      lock.notifyAll();
    }
    listeners.forEach(Runnable::run);
  }

  /**
   * Moves the clock to {@code instant} (not before the current time) and wakes every waiter.
   *
   * @param instant the new time, not before the current one
   */
  public void set(Instant instant) {
    advance(Duration.between(now(), instant));
  }

  @Override
  public long nanosUntil(Instant deadline) {
    return deadline.isAfter(now()) ? Long.MAX_VALUE : 0;
  }

  @Override
  public void addListener(Runnable onAdvance) {
    listeners.add(onAdvance);
  }

  @Override
  public void removeListener(Runnable onAdvance) {
    listeners.remove(onAdvance);
  }

  /** Blocks until another thread has advanced this clock by {@code duration}. */
  @Override
  public void sleep(Duration duration) throws InterruptedException {
    synchronized (lock) {
      Instant deadline = now.plus(duration);
      while (now.isBefore(deadline)) {
        lock.wait();
      }
    }
  }

  @Override
  public String toString() {
    return "ManualClock[" + now() + "]";
  }
}
