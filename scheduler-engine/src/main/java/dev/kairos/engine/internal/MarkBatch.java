package dev.kairos.engine.internal;

import dev.kairos.spi.StartMark;
import java.util.ArrayList;
import java.util.List;

/**
 * Start marks written together ({@link dev.kairos.spi.JobStore#runsStarted}): the running entry of
 * the worker that made the batch, and queued entries already due, so that their workers find them
 * marked and start at once. The worker that made it writes it; a worker that takes one of its other
 * entries waits for that write before its run starts, so a run never starts unmarked.
 */
final class MarkBatch {
  final List<StartMark> marks = new ArrayList<>();
  private final Thread writer;
  private boolean claimed;
  private boolean done;
  private boolean written;

  /**
   * @param writer the thread that writes the batch itself, or null if another thread (the
   *     mark-ahead writer) writes it for whoever takes its entries
   */
  MarkBatch(Thread writer) {
    this.writer = writer;
  }

  /**
   * True once, for the thread that made the batch: it must write it now. Every other call (another
   * worker, or the maker taking a later entry of the batch) answers false: wait for the write.
   */
  synchronized boolean claimWrite() {
    if (writer != Thread.currentThread() || claimed) {
      return false;
    }
    claimed = true;
    return true;
  }

  /** The writer's report: written (durable) or not. Wakes the waiters. */
  synchronized void complete(boolean ok) {
    written = ok;
    done = true;
    notifyAll();
  }

  /** True once written; false if not yet complete or the write failed. */
  synchronized boolean written() {
    return done && written;
  }

  /** Waits (uninterruptibly) for the writer's report; true if the marks are durable. */
  synchronized boolean await() {
    boolean interrupted = false;
    while (!done) {
      try {
        wait();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return written;
  }
}
