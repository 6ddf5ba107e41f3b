package dev.kairos.engine.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-back pipeline of a store that batches runs ({@link
 * dev.kairos.spi.JobStore#batchesRuns}): a worker that finished a run queues its write-back here
 * and takes the next due fire at once; writer threads take everything queued, up to {@link
 * #MAX_BATCH}, and hand it to one {@code writer} call (one transaction). The longer a transaction
 * takes, the more write-backs queue behind it and the larger the next batch: the commits per run
 * fall as the load rises.
 *
 * <p>The same queue, with one writer thread, writes mark-ahead batches of start marks (see {@code
 * FireRunner#writeMarks}).
 *
 * <p><b>Invariants.</b> A write-back's continuation (which re-queues the job in the dispatcher)
 * runs only after the writer returned, so a job re-enters the heap only from a state the store has
 * committed, and a job never has two write-backs queued (it is not taken again until its
 * continuation ran): the keys of one batch are distinct. One lock guards the queue, the count of
 * items being written and the stop flag; writers wait on {@code work} without a timeout and are
 * signalled for each submission; {@link #drain} waits on {@code idle}, signalled whenever a batch
 * completes.
 *
 * @param <T> one queued write-back, with whatever its continuation needs
 */
final class WriteBackQueue<T> {
  private static final Logger log = LoggerFactory.getLogger(WriteBackQueue.class);

  /** Most write-backs in one writer call. */
  static final int MAX_BATCH = 256;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final Condition idle = lock.newCondition();
  private final ArrayDeque<T> queue = new ArrayDeque<>();
  private final Consumer<List<T>> writer;
  private final List<Thread> threads = new ArrayList<>();
  private int writing;
  private boolean stopped;

  /**
   * @param writer writes a batch and runs each item's continuation; must not throw (a throw is
   *     logged and the batch's items are lost from memory, as an engine failure would lose them)
   */
  WriteBackQueue(Consumer<List<T>> writer) {
    this.writer = writer;
  }

  /**
   * Starts {@code count} daemon writer threads named after the instance (platform threads of the
   * engine's own, as the cluster thread is: the user's thread factory makes workers only).
   */
  void start(int count, String instanceId) {
    for (int i = 0; i < count; i++) {
      Thread t = new Thread(this::loop, "kairos-writeback-" + instanceId + "-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** Queues one write-back; a writer picks it up at once if idle. */
  void submit(T item) {
    lock.lock();
    try {
      queue.add(item);
      work.signal();
    } finally {
      lock.unlock();
    }
  }

  private void loop() {
    for (; ; ) {
      List<T> batch;
      lock.lock();
      try {
        while (queue.isEmpty() && !stopped) {
          work.awaitUninterruptibly();
        }
        if (queue.isEmpty()) {
          return; // stopped and nothing left
        }
        batch = new ArrayList<>(Math.min(queue.size(), MAX_BATCH));
        while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
          batch.add(queue.poll());
        }
        writing += batch.size();
      } finally {
        lock.unlock();
      }
      try {
        writer.accept(batch);
      } catch (RuntimeException | Error e) {
        log.error("write-back of {} run(s) failed unexpectedly", batch.size(), e);
      } finally {
        lock.lock();
        try {
          writing -= batch.size();
          idle.signalAll();
        } finally {
          lock.unlock();
        }
      }
    }
  }

  /**
   * Waits until every queued write-back has been written (or the deadline passes), then lets the
   * writer threads end.
   *
   * @param deadlineNanos a {@link System#nanoTime} deadline
   * @return true if nothing was left unwritten
   */
  boolean drain(long deadlineNanos) {
    lock.lock();
    try {
      while (!queue.isEmpty() || writing > 0) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          idle.awaitNanos(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      boolean empty = queue.isEmpty() && writing == 0;
      stopped = true;
      work.signalAll();
      return empty;
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos} for the writer threads to end. */
  void join(long nanos) {
    long deadline = System.nanoTime() + nanos;
    for (Thread t : threads) {
      try {
        TimeUnit.NANOSECONDS.timedJoin(t, Math.max(1, deadline - System.nanoTime()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
