package dev.kairos.engine.internal;

import dev.kairos.engine.TimeSource;
import java.time.Instant;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Interrupts the runs of {@link dev.kairos.Overlap#replace() replace} jobs when their next fire
 * comes due. A worker {@linkplain #watch registers} its run before the handler starts and
 * {@linkplain #end ends} the watch as soon as the handler returns; one daemon thread, started with
 * the first watch, waits for the earliest deadline on the scheduler's time source and interrupts
 * that run's worker.
 *
 * <p>Invariant: {@link #end} and the interruption both hold {@link #lock}, and a watch that has
 * ended is never interrupted; so once {@code end} has returned, no interrupt from here can reach
 * the worker, which may then run another job's fire. An interrupt that arrived before the end is
 * reported by {@code end}'s result, and the worker clears its flag. The thread waits timed only for
 * the earliest deadline, and is woken when a new watch becomes the earliest, when the time source
 * jumps (a manual clock), and at {@link #stop}.
 */
final class RunReplacer implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(RunReplacer.class);

  /** One watched run. Fields other than the final ones are guarded by {@link #lock}. */
  static final class Watch {
    final String key;
    final Instant deadline;
    final Instant replacedBy;
    final Thread worker;
    boolean fired;

    private Watch(String key, Instant deadline, Instant replacedBy, Thread worker) {
      this.key = key;
      this.deadline = deadline;
      this.replacedBy = replacedBy;
      this.worker = worker;
    }
  }

  private final TimeSource time;
  private final String instanceId;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final PriorityQueue<Watch> watches =
      new PriorityQueue<>(Comparator.comparing((Watch w) -> w.deadline));
  private final Runnable onAdvance = this::signal;
  private Thread thread;
  private boolean stopped;

  RunReplacer(TimeSource time, String instanceId) {
    this.time = time;
    this.instanceId = instanceId;
  }

  /**
   * Watches the calling thread's run of {@code key}: it is interrupted once the time source reaches
   * {@code deadline}, unless the watch has ended by then.
   *
   * @param key the job
   * @param deadline when the fire that replaces the run is due
   * @param replacedBy that fire's scheduled time
   * @return the watch, to {@link #end} when the handler returns; null once stopped
   */
  Watch watch(String key, Instant deadline, Instant replacedBy) {
    Watch w = new Watch(key, deadline, replacedBy, Thread.currentThread());
    lock.lock();
    try {
      if (stopped) {
        return null;
      }
      if (thread == null) {
        time.addListener(onAdvance);
        thread = new Thread(this, "kairos-replacer-" + instanceId);
        thread.setDaemon(true);
        thread.start();
      }
      watches.add(w);
      if (watches.peek() == w) {
        changed.signal();
      }
      return w;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends a watch: no interrupt reaches its worker from here on.
   *
   * @param w the watch ({@code null}: nothing)
   * @return true if the run was interrupted to be replaced
   */
  boolean end(Watch w) {
    if (w == null) {
      return false;
    }
    lock.lock();
    try {
      watches.remove(w);
      return w.fired;
    } finally {
      lock.unlock();
    }
  }

  /** Stops the thread; watches still open are dropped (close interrupts their workers anyway). */
  void stop() {
    lock.lock();
    try {
      stopped = true;
      watches.clear();
      changed.signal();
    } finally {
      lock.unlock();
    }
    time.removeListener(onAdvance);
  }

  private void signal() {
    lock.lock();
    try {
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void run() {
    lock.lock();
    try {
      while (!stopped) {
        Watch head = watches.peek();
        if (head == null) {
          changed.await();
          continue;
        }
        long nanos = time.nanosUntil(head.deadline);
        if (nanos == Long.MAX_VALUE) {
          changed.await(); // a manual clock: its advance signals
          continue;
        }
        if (nanos > 0) {
          changed.awaitNanos(Math.min(nanos, Dispatcher.CLOCK_RECHECK)); // the clock may step
          continue;
        }
        watches.poll();
        head.fired = true;
        log.info(
            "job '{}': its fire {} came due during its run; interrupting the run (overlap policy"
                + " replace)",
            head.key,
            head.replacedBy);
        head.worker.interrupt();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
  }
}
