package dev.kairos.engine.internal;

import dev.kairos.engine.TimeSource;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the store is answering, shared by all workers so that an outage is logged once when it
 * starts and once when it ends, not once per failed call.
 */
final class StoreHealth {
  private static final Logger log = LoggerFactory.getLogger(StoreHealth.class);
  private final AtomicBoolean down = new AtomicBoolean();

  /** A store call failed. Logs the first failure of an outage at WARN, later ones at DEBUG. */
  void failed(String what, RuntimeException ex) {
    if (down.compareAndSet(false, true)) {
      log.warn("store failed while {}; retrying with backoff until it answers", what, ex);
    } else {
      log.debug("store still failing while {}: {}", what, ex.toString());
    }
  }

  /** A store call succeeded. Logs the end of an outage. */
  void ok() {
    if (down.get() && down.compareAndSet(true, false)) {
      log.info("store answers again; firing resumes");
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
    try {
      TimeSource.system().sleep(backoff);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
