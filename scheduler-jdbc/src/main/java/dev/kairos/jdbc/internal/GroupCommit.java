package dev.kairos.jdbc.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Group commit: write-backs that arrive while another is committing are written together, in one
 * transaction, by whichever caller gets the lock next (flat combining). Each caller still returns
 * only after its own item committed, so the engine re-queues a job only after its write-back.
 *
 * <p>If a batch fails, its items are retried one by one, so one bad item fails alone. Items are
 * handled in key order, so two instances' batches lock rows in the same order.
 *
 * @param <T> an item to write
 * @param <R> its result
 */
public final class GroupCommit<T, R> {
  /** Most items written in one transaction. */
  static final int MAX_BATCH = 64;

  private final ReentrantLock lock = new ReentrantLock();
  private final ConcurrentLinkedQueue<Slot<T, R>> queue = new ConcurrentLinkedQueue<>();
  private final Function<T, String> key;

  /** An item waiting for its commit; its fields are written and read under {@link #lock}. */
  private static final class Slot<T, R> {
    final T item;
    boolean done;
    R result;
    RuntimeException error;

    Slot(T item) {
      this.item = item;
    }
  }

  /**
   * @param key the key items are ordered by within a batch
   */
  public GroupCommit(Function<T, String> key) {
    this.key = key;
  }

  /**
   * Writes {@code item}, possibly together with others, and returns its result once committed.
   *
   * @param batch writes several items in one transaction, returning their results in order
   * @param single writes one item in a transaction of its own
   */
  public R submit(T item, Function<List<T>, List<R>> batch, Function<T, R> single) {
    Slot<T, R> mine = new Slot<>(item);
    queue.add(mine);
    lock.lock();
    try {
      if (!mine.done) {
        write(drain(), batch, single);
      }
      if (mine.error != null) {
        throw mine.error;
      }
      return mine.result;
    } finally {
      lock.unlock();
    }
  }

  /** Call only with the lock held. */
  private List<Slot<T, R>> drain() {
    List<Slot<T, R>> slots = new ArrayList<>();
    for (Slot<T, R> s; slots.size() < MAX_BATCH && (s = queue.poll()) != null; ) {
      slots.add(s);
    }
    slots.sort(Comparator.comparing(s -> key.apply(s.item)));
    return slots;
  }

  /** Call only with the lock held. */
  private void write(
      List<Slot<T, R>> slots, Function<List<T>, List<R>> batch, Function<T, R> single) {
    if (slots.size() > 1) {
      try {
        List<R> results = batch.apply(slots.stream().map(s -> s.item).toList());
        for (int i = 0; i < slots.size(); i++) {
          slots.get(i).result = results.get(i);
          slots.get(i).done = true;
        }
        return;
      } catch (RuntimeException e) {
        // fall through: one by one, so that one failing item fails alone
      }
    }
    for (Slot<T, R> s : slots) {
      try {
        s.result = single.apply(s.item);
      } catch (RuntimeException e) {
        s.error = e;
      }
      s.done = true;
    }
  }
}
