package dev.kairos.jdbc.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Pipelined group commit: items (write-backs, start marks) that arrive together are written in one
 * transaction, and up to {@code lanes} such transactions are in flight at once, so that on a
 * database whose commit waits for a disk flush the flushes overlap instead of queueing behind one
 * another. Each caller returns only after its own item committed, or throws its own error.
 *
 * <p><b>State.</b> One {@link ReentrantLock} guards everything: the FIFO queue of items not yet
 * taken, the number of batches in flight, the set of keys in flight, and each slot's state. The
 * lock is held only to take or complete a batch, never while the database works.
 *
 * <p><b>Combining.</b> A caller enqueues its slot and, under the lock, becomes a combiner if a lane
 * is free ({@code active < lanes}) and its own key is not in flight. A combiner takes its own slot
 * and, in FIFO order, up to {@link #MAX_BATCH} queued slots whose keys are not in flight; it adds
 * their keys to the in-flight set, sorts the batch by key (stable, so two items of one key keep
 * their order), releases the lock and writes it. It then retakes the lock, records each slot's
 * result or error, removes the batch's keys, frees the lane, and signals the owners of the batch's
 * slots and of every queued slot that could now combine. A combiner's own item is always in its
 * batch, so it returns after one batch.
 *
 * <p><b>Waiting.</b> A caller that cannot combine waits on its own slot's {@link Condition}, not
 * spinning. It is signalled when its slot completes (by the combiner that took it) or, while still
 * queued, whenever a batch completes and its key is free; it then re-checks under the lock. Lanes
 * and keys become free only when a batch completes, and every completion signals every queued slot
 * whose key is free, so a queued item never waits while a lane is free and nobody is on their way
 * to take it (no lost wake-up); the check and the wait happen under the same lock. A caller waits
 * uninterruptibly: its item may already be in another's transaction, and it must not return before
 * that commits (the interrupt status is kept).
 *
 * <p><b>Why an in-flight key set, not lanes by key hash.</b> Hash lanes would serialize two keys
 * that share a lane while another lane idles, and split batches by lane; with a few workers that
 * loses most of the overlap. The key set lets any free lane take any queued item, and still keeps
 * one key out of two concurrent transactions: they would otherwise wait on each other's row lock
 * (or, for a start mark and a write-back, commit out of order). Within each batch rows are locked
 * in key order, and batches are disjoint, so concurrent batches here and other instances' sorted
 * batches cannot form a deadlock cycle.
 *
 * <p><b>Failures.</b> If a batch fails, its items are retried one by one in the same lane (keys
 * still in flight), so one bad item fails alone. An {@link Error} while writing completes every
 * slot of the batch with it rather than leaving their owners waiting.
 *
 * @param <T> an item to write
 * @param <R> its result
 */
public final class GroupCommit<T, R> {
  /** Most items written in one transaction. */
  static final int MAX_BATCH = 64;

  /** Most transactions in flight at once, whatever the pool. */
  static final int MAX_LANES = 4;

  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Slot<T, R>> queue = new ArrayDeque<>();
  private final Set<String> inFlight = new HashSet<>();
  private final Function<T, String> key;
  private final int lanes;
  private int active;

  /** An item and its outcome; every field but {@code item} and {@code key} is guarded by lock. */
  private static final class Slot<T, R> {
    final T item;
    final String key;
    final Condition changed;
    boolean taken;
    boolean done;
    R result;
    Throwable error;

    Slot(T item, String key, Condition changed) {
      this.item = item;
      this.key = key;
      this.changed = changed;
    }
  }

  /**
   * One transaction at a time.
   *
   * @param key the key items are ordered by within a batch
   */
  public GroupCommit(Function<T, String> key) {
    this(key, 1);
  }

  /**
   * @param key the key items are ordered by within a batch; never two batches in flight share one
   * @param lanes most batches in flight at once (at least 1)
   */
  public GroupCommit(Function<T, String> key, int lanes) {
    if (lanes < 1) {
      throw new IllegalArgumentException("lanes must be at least 1: " + lanes);
    }
    this.key = key;
    this.lanes = lanes;
  }

  /**
   * Lanes for a pool of {@code poolSize} connections: one connection is left for other work, at
   * most {@link #MAX_LANES}, at least one; an unknown size (0) counts as the store's default pool.
   */
  public static int lanesFor(int poolSize) {
    int pool = poolSize > 0 ? poolSize : 8;
    return Math.max(1, Math.min(MAX_LANES, pool - 1));
  }

  /**
   * Writes {@code item}, possibly together with others, and returns its result once committed.
   *
   * @param batch writes several items in one transaction, returning their results in order
   * @param single writes one item in a transaction of its own
   */
  public R submit(T item, Function<List<T>, List<R>> batch, Function<T, R> single) {
    String k = key.apply(item);
    lock.lock();
    try {
      Slot<T, R> mine = new Slot<>(item, k, lock.newCondition());
      queue.add(mine);
      while (!mine.done) {
        if (!mine.taken && active < lanes && !inFlight.contains(mine.key)) {
          combine(mine, batch, single);
        } else {
          mine.changed.awaitUninterruptibly();
        }
      }
      if (mine.error instanceof RuntimeException e) {
        throw e;
      }
      if (mine.error instanceof Error e) {
        throw e;
      }
      if (mine.error != null) {
        throw new IllegalStateException(mine.error); // a checked exception thrown sneakily
      }
      return mine.result;
    } finally {
      lock.unlock();
    }
  }

  /** Called with the lock held; takes a batch with {@code mine} in it, writes it, completes it. */
  private void combine(Slot<T, R> mine, Function<List<T>, List<R>> batch, Function<T, R> single) {
    List<Slot<T, R>> slots = take(mine);
    Set<String> keys = new LinkedHashSet<>();
    for (Slot<T, R> s : slots) {
      keys.add(s.key);
    }
    inFlight.addAll(keys);
    active++;
    List<T> items = slots.stream().map(s -> s.item).toList();
    Outcomes<R> out = new Outcomes<>(slots.size());
    lock.unlock();
    try {
      write(items, out, batch, single);
    } catch (Throwable t) {
      out.fatal = t; // an Error, or a batch's wrong result count: no item is written again
    } finally {
      lock.lock();
      for (int i = 0; i < slots.size(); i++) {
        Slot<T, R> s = slots.get(i);
        if (out.written[i]) {
          s.result = out.results.get(i);
          s.error = out.errors.get(i);
        } else {
          s.error = out.fatal != null ? out.fatal : new IllegalStateException("item not written");
        }
        s.done = true;
        if (s != mine) {
          s.changed.signal();
        }
      }
      inFlight.removeAll(keys);
      active--;
      for (Slot<T, R> s : queue) {
        if (!inFlight.contains(s.key)) {
          s.changed.signal(); // it may combine now: a lane is free and its key too
        }
      }
    }
  }

  /** Called with the lock held: {@code mine} and queued slots whose keys are free, in key order. */
  private List<Slot<T, R>> take(Slot<T, R> mine) {
    List<Slot<T, R>> slots = new ArrayList<>();
    int others = 0;
    boolean gotMine = false;
    for (Iterator<Slot<T, R>> it = queue.iterator(); it.hasNext(); ) {
      Slot<T, R> s = it.next();
      if (s == mine) {
        gotMine = true;
      } else if (others < MAX_BATCH - 1 && !inFlight.contains(s.key)) {
        others++;
      } else {
        continue;
      }
      it.remove();
      s.taken = true;
      slots.add(s);
      if (gotMine && others == MAX_BATCH - 1) {
        break;
      }
    }
    slots.sort(Comparator.comparing(s -> s.key));
    return slots;
  }

  /** What a combiner learned while writing, without the lock; copied to the slots under it. */
  private static final class Outcomes<R> {
    final boolean[] written;
    final List<R> results;
    final List<RuntimeException> errors;
    Throwable fatal;

    Outcomes(int n) {
      written = new boolean[n];
      results = new ArrayList<>(java.util.Collections.nCopies(n, null));
      errors = new ArrayList<>(java.util.Collections.nCopies(n, null));
    }
  }

  /** Writes the items without the lock, in one transaction, else one by one. */
  private static <T, R> void write(
      List<T> items, Outcomes<R> out, Function<List<T>, List<R>> batch, Function<T, R> single) {
    if (items.size() > 1) {
      List<R> results;
      try {
        results = batch.apply(items);
      } catch (RuntimeException e) {
        results = null; // one by one, so that one failing item fails alone
      }
      if (results != null) {
        if (results.size() != items.size()) { // committed: not to be written again
          throw new IllegalStateException(results.size() + " results for " + items.size());
        }
        for (int i = 0; i < items.size(); i++) {
          out.results.set(i, results.get(i));
          out.written[i] = true;
        }
        return;
      }
    }
    for (int i = 0; i < items.size(); i++) {
      try {
        out.results.set(i, single.apply(items.get(i)));
      } catch (RuntimeException e) {
        out.errors.set(i, e);
      }
      out.written[i] = true;
    }
  }
}
