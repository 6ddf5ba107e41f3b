package dev.kairos.engine.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
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
 * <p>An item whose write failed may be put back for a <em>retry</em> after a delay ({@link
 * #retryLater}): a due retry is handed to the {@code retryWriter} alone (taking turns with the
 * queue's batches while both wait), and the writer thread is free meanwhile. So a write-back the
 * store refuses again and again (one bad row) holds up neither its batch mates nor the write-backs
 * queued after it: only its own job waits. Retries left when the queue stops are handed to {@code
 * abandon}.
 *
 * <p>The same queue, with one writer thread, writes mark-ahead batches of start marks (see {@code
 * FireRunner#writeMarks}).
 *
 * <p><b>Invariants.</b> A write-back's continuation (which re-queues the job in the dispatcher)
 * runs only after the writer returned, so a job re-enters the heap only from a state the store has
 * committed, and a job never has two write-backs queued (it is not taken again until its
 * continuation ran): the keys of one batch are distinct, and an item waiting for its retry is in no
 * batch. One lock guards the queue, the retries, the count of items being written and the stop
 * flag; writers wait on {@code work}, timed only until the earliest retry is due, and are signalled
 * for each submission and each retry put back; {@link #drain} waits on {@code idle}, signalled
 * whenever a batch completes. A lingering writer waits on {@code work} with a timeout (the linger's
 * end), is signalled for each submission, and stops lingering at once on {@link #drain}, an item
 * that may not wait, or a full batch.
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

  /** Items put back by {@link #retryLater}, earliest due first. Guarded by the lock. */
  private final PriorityQueue<Retry<T>> retries =
      new PriorityQueue<>((a, b) -> Long.compare(a.dueNanos - b.dueNanos, 0));

  /** An item waiting for its retry until {@code dueNanos} ({@link System#nanoTime}). */
  private record Retry<T>(T item, long dueNanos) {}

  /** Whether a due retry goes before the queue's next batch. Guarded by the lock. */
  private boolean retryTurn;

  private final Consumer<List<T>> writer;
  private final Consumer<T> retryWriter;
  private final Consumer<T> abandon;
  private final long lingerNanos;
  private final Predicate<T> mayWait;
  private final List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
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
    this(writer, lingerNanos, mayWait, item -> {}, item -> {});
  }

  /**
   * A lingering queue whose items may be put back for a retry ({@link #retryLater}).
   *
   * @param writer as {@link #WriteBackQueue(Consumer)}
   * @param lingerNanos as {@link #WriteBackQueue(Consumer, long, Predicate)}
   * @param mayWait as {@link #WriteBackQueue(Consumer, long, Predicate)}
   * @param retryWriter writes one item whose retry is due and runs its continuation (or puts it
   *     back again); must not throw
   * @param abandon called, on a writer thread, for each retry still waiting when the queue stops
   */
  WriteBackQueue(
      Consumer<List<T>> writer,
      long lingerNanos,
      Predicate<T> mayWait,
      Consumer<T> retryWriter,
      Consumer<T> abandon) {
    this.writer = writer;
    this.lingerNanos = lingerNanos;
    this.mayWait = mayWait;
    this.retryWriter = retryWriter;
    this.abandon = abandon;
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

  /** Whether the calling thread is one of this queue's writer threads. */
  boolean onWriterThread() {
    return threads.contains(Thread.currentThread());
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
   * Puts back an item whose write failed, to be handed to the retry writer alone once {@code
   * delayNanos} have passed. {@link #drain} waits for it as for a queued item.
   *
   * @return false, and nothing is kept, if the queue has stopped: the caller abandons the item
   */
  boolean retryLater(T item, long delayNanos) {
    lock.lock();
    try {
      if (stopped) {
        return false;
      }
      retries.add(new Retry<>(item, System.nanoTime() + delayNanos));
      work.signal();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Holding the lock: removes and returns the earliest retry if it is due, else null. */
  private T dueRetry() {
    Retry<T> r = retries.peek();
    if (r == null || r.dueNanos - System.nanoTime() > 0) {
      return null;
    }
    return retries.poll().item;
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
      List<T> batch = null;
      T retry = null;
      List<T> abandoned = null;
      lock.lock();
      try {
        for (; ; ) {
          // With both a batch and a due retry waiting, they take turns: neither starves the other.
          retry = queue.isEmpty() || retryTurn ? dueRetry() : null;
          if (retry != null || !queue.isEmpty()) {
            retryTurn = retry == null;
            break;
          }
          if (stopped) {
            abandoned = new ArrayList<>();
            while (!retries.isEmpty()) {
              abandoned.add(retries.poll().item);
            }
            break;
          }
          Retry<T> next = retries.peek();
          if (next == null) {
            work.awaitUninterruptibly();
          } else {
            awaitQuietly(next.dueNanos - System.nanoTime());
          }
        }
        if (retry != null) {
          writing++;
        } else if (abandoned == null) {
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
        }
      } finally {
        lock.unlock();
      }
      if (abandoned != null) {
        abandoned.forEach(this::abandonQuietly);
        return; // stopped and nothing left
      }
      int count = retry != null ? 1 : batch.size();
      try {
        if (retry != null) {
          retryWriter.accept(retry);
        } else {
          writer.accept(batch);
        }
      } catch (RuntimeException | Error e) {
        log.error("write-back of {} run(s) failed unexpectedly", count, e);
      } finally {
        lock.lock();
        try {
          writing -= count;
          idle.signalAll();
        } finally {
          lock.unlock();
        }
      }
    }
  }

  private void abandonQuietly(T item) {
    try {
      abandon.accept(item);
    } catch (RuntimeException | Error e) {
      log.error("giving up a write-back at close failed unexpectedly", e);
    }
  }

  /** Holding the lock: waits on {@code work} up to {@code nanos}; an interrupt ends the wait. */
  private void awaitQuietly(long nanos) {
    if (nanos <= 0) {
      return;
    }
    try {
      work.awaitNanos(nanos);
    } catch (InterruptedException e) {
      // Nothing interrupts a writer thread; not re-asserted, as in linger().
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
      while (!queue.isEmpty() || writing > 0 || !retries.isEmpty()) {
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
      boolean empty = queue.isEmpty() && writing == 0 && retries.isEmpty();
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
