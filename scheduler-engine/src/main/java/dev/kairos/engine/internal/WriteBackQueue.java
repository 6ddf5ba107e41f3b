package dev.kairos.engine.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
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
 * <p>At a steady, light rate (fires spread over time, each finished before the next is due) every
 * write-back would otherwise be a transaction of its own. A queue made with a <em>linger</em> lets
 * its writer wait up to that long, from when it finds the queue non-empty, for more write-backs to
 * join the batch, unless an item queued says it may not wait (its job is due again within the
 * linger) or the batch is full: at 1,000 jobs a second, a linger of 3 ms more than halved the
 * commits per fire and cut the CPU per fire by a quarter to a third (H2, PostgreSQL). Nothing waits
 * for a write-back but its own job's next fire and the close, so a job due later than the linger
 * loses nothing.
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
 * completes. A lingering writer waits on {@code work} with a timeout (the linger's end), is
 * signalled for each submission, and stops lingering at once on {@link #drain}, an item that may
 * not wait, or a full batch.
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
  private final long lingerNanos;
  private final Predicate<T> mayWait;
  private final List<Thread> threads = new ArrayList<>();
  private int writing;
  private boolean stopped;

  /** Set by {@link #drain}: nobody lingers from then on. */
  private boolean draining;

  /**
   * Items queued that may not wait for a linger, plus {@link #hurry} calls; set to 0 when a writer
   * empties the queue.
   */
  private int urgent;

  /**
   * @param writer writes a batch and runs each item's continuation; must not throw (a throw is
   *     logged and the batch's items are lost from memory, as an engine failure would lose them)
   */
  WriteBackQueue(Consumer<List<T>> writer) {
    this(writer, 0, item -> false);
  }

  /**
   * A queue whose writers linger (see the class comment).
   *
   * @param writer as {@link #WriteBackQueue(Consumer)}
   * @param lingerNanos longest a writer waits for more items once it found one; 0 for none
   * @param mayWait whether an item may wait for the linger (asked once, as it is submitted, on the
   *     submitting thread); one that may not ends the linger for the whole batch
   */
  WriteBackQueue(Consumer<List<T>> writer, long lingerNanos, Predicate<T> mayWait) {
    this.writer = writer;
    this.lingerNanos = lingerNanos;
    this.mayWait = mayWait;
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
    boolean hurry = lingerNanos > 0 && !mayWait.test(item); // outside the lock: it reads a clock
    lock.lock();
    try {
      queue.add(item);
      if (hurry) {
        urgent++;
      }
      work.signal();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends a linger now, and keeps the next batch from lingering if nothing is queued yet: for a
   * write-back somebody waits for (a {@code triggerNow()} that arrived during the run). The mark
   * lasts until a writer empties the queue, so a write-back submitted just after this call does not
   * linger either.
   */
  void hurry() {
    lock.lock();
    try {
      urgent++;
      work.signalAll();
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
        linger();
        if (queue.isEmpty()) {
          continue; // the other writer took them while this one lingered
        }
        batch = new ArrayList<>(Math.min(queue.size(), MAX_BATCH));
        while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
          batch.add(queue.poll());
        }
        if (queue.isEmpty()) {
          urgent = 0;
        } // else: more than one batch queued, so no writer lingers until it is empty again
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
   * Holding the lock, with items queued: waits for more until the linger ends, unless the queue is
   * draining, holds an item that may not wait, or holds a full batch.
   */
  private void linger() {
    if (lingerNanos <= 0) {
      return;
    }
    long until = System.nanoTime() + lingerNanos;
    for (; ; ) {
      long left = until - System.nanoTime();
      if (left <= 0 || draining || urgent > 0 || queue.size() >= MAX_BATCH || queue.isEmpty()) {
        return;
      }
      try {
        work.awaitNanos(left);
      } catch (InterruptedException e) {
        // Nothing interrupts a writer thread. Not re-asserted: the store call that follows must
        // not see the flag (H2 closes its file on an interrupted thread).
        return;
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
      draining = true;
      work.signalAll(); // a lingering writer writes what it has at once
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
