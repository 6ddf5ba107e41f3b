package dev.kairos.engine.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the store is answering, shared by all workers so that an outage is logged once when it
 * starts and once when it ends, not once per failed call; and so that when one call succeeds again,
 * every worker waiting out a backoff retries at once instead of sleeping on (the first fire after a
 * database restart comes as soon as the database answers, not a backoff later).
 */
final class StoreHealth {
  private static final Logger log = LoggerFactory.getLogger(StoreHealth.class);
  private final AtomicBoolean down = new AtomicBoolean();
  private final ReentrantLock lock = new ReentrantLock();

  /** System.nanoTime() when the current outage began. */
  private volatile long downSince;

  /**
   * Only an outage longer than this wakes the waiters when it ends: a failure of one call while
   * others succeed (one bad row, say) keeps its own backoff instead of retrying in a hot loop.
   */
  private static final long WAKE_AFTER_NANOS = Duration.ofMillis(100).toNanos();

  /** Signalled when an outage ends. */
  private final Condition answers = lock.newCondition();

  /** A store call failed. Logs the first failure of an outage at WARN, later ones at DEBUG. */
  void failed(String what, RuntimeException ex) {
    if (down.compareAndSet(false, true)) {
      downSince = System.nanoTime();
      log.warn("store failed while {}; retrying with backoff until it answers", what, ex);
    } else {
      log.debug("store still failing while {}: {}", what, ex.toString());
    }
  }

  /** A store call succeeded. Logs the end of an outage. */
  void ok() {
    if (down.get() && down.compareAndSet(true, false)) {
      log.info("store answers again; firing resumes");
      if (System.nanoTime() - downSince < WAKE_AFTER_NANOS) {
        return;
      }
      lock.lock();
      try {
        answers.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** True while an outage lasts. */
  boolean isDown() {
    return down.get();
  }

  /**
   * Waits out a backoff in real time (a store outage is real, whatever the scheduler's clock).
   * Returns false if the thread was interrupted, with its flag restored.
   */
  boolean pause(Duration backoff) {
    lock.lock();
    try {
      answers.awaitNanos(backoff.toNanos()); // or until an outage ends
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }
}
