package dev.kairos.jdbc.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes "this run started" marks (state RUNNING, last start) only for runs still going after a
 * delay, in one batch, so that a short run costs one transaction (its write-back) instead of two.
 *
 * <p>The mark exists for crash recovery: a row left RUNNING tells the next instance that the fire
 * was interrupted, and its re-run is flagged as a recovery. A crash within the delay re-runs the
 * fire all the same (its write-back never happened), only without the flag.
 *
 * <p>Ordering: a mark must never land after its run's write-back (it would leave a finished job
 * RUNNING). {@link #finished} removes a pending mark; if the mark already left the pending map, a
 * flush may be writing it, so {@code finished} waits for the flush lock before the write-back.
 */
public final class StartMarks implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StartMarks.class);

  private final Duration delay;
  private final Consumer<List<Mark>> writer;
  private final Map<String, Mark> pending = new ConcurrentHashMap<>();
  private final ReentrantLock flushing = new ReentrantLock();
  private ScheduledExecutorService flusher;

  /** One mark: the job, its run's start, and when (System.nanoTime) it becomes due for writing. */
  public record Mark(String key, Instant start, long dueNanos) {}

  /**
   * @param delay how long a run must last before its mark is written; zero writes at once
   * @param writer writes a batch of marks in one transaction
   */
  public StartMarks(Duration delay, Consumer<List<Mark>> writer) {
    this.delay = delay;
    this.writer = writer;
  }

  /** A run started. */
  public void started(String key, Instant start) {
    Mark mark = new Mark(key, start, System.nanoTime() + delay.toNanos());
    if (delay.isZero()) {
      writer.accept(List.of(mark));
      return;
    }
    pending.put(key, mark);
    ensureFlusher();
  }

  /**
   * A run started, marked now on the calling thread whatever the delay (in a transaction of the
   * caller's, which the mark must join); a mark of the job still pending is left to its flush.
   */
  public void startedNow(String key, Instant start) {
    writer.accept(List.of(new Mark(key, start, System.nanoTime())));
  }

  /** A run finished; call before its write-back. */
  public void finished(String key) {
    if (pending.remove(key) == null && !delay.isZero()) {
      flushing.lock(); // a flush may be writing this job's mark: let it commit first
      flushing.unlock();
    }
  }

  private synchronized void ensureFlusher() {
    if (flusher == null) {
      flusher =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "kairos-start-marks");
                t.setDaemon(true);
                return t;
              });
      long period = Math.max(10, Math.min(delay.toMillis() / 4, 250));
      flusher.scheduleWithFixedDelay(this::flushDue, period, period, TimeUnit.MILLISECONDS);
    }
  }

  /** Writes the marks that are due, in one batch. */
  void flushDue() {
    flushing.lock();
    try {
      long now = System.nanoTime();
      List<Mark> due = new ArrayList<>();
      for (Mark m : pending.values()) {
        if (now - m.dueNanos() >= 0 && pending.remove(m.key(), m)) {
          due.add(m);
        }
      }
      if (!due.isEmpty()) {
        due.sort(java.util.Comparator.comparing(Mark::key)); // rows locked in key order
        writer.accept(due);
      }
    } catch (RuntimeException e) {
      log.warn("writing start marks failed; those runs are not marked RUNNING", e);
    } finally {
      flushing.unlock();
    }
  }

  @Override
  public synchronized void close() {
    if (flusher != null) {
      flusher.shutdownNow();
      flusher = null;
    }
    pending.clear();
  }
}
