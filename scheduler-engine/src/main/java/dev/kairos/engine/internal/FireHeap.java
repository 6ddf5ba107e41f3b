package dev.kairos.engine.internal;

import java.util.Arrays;

/**
 * A binary min-heap of entries ordered by (due, seq), each entry knowing its index so that removal
 * is O(log n). Not thread-safe: call only with the dispatcher's lock held.
 */
final class FireHeap {
  private Entry[] queue = new Entry[64];
  private int size;

  int size() {
    return size;
  }

  /** The entry at heap index {@code i} (0 is the head; the children of i are 2i+1 and 2i+2). */
  Entry at(int i) {
    return queue[i];
  }

  /** The head, or null if empty. */
  Entry peek() {
    return queue[0];
  }

  void add(Entry e) {
    if (size == queue.length) {
      queue = Arrays.copyOf(queue, size + (size >> 1));
    }
    int k = size++;
    siftUp(k, e);
  }

  /** Removes and returns the head; null if empty. */
  Entry poll() {
    Entry head = queue[0];
    if (head != null) {
      removeAt(0);
    }
    return head;
  }

  /** Removes the entry through its heap index; false if it was not queued. */
  boolean remove(Entry e) {
    int i = e.heapIndex;
    if (i < 0 || i >= size || queue[i] != e) {
      return false;
    }
    removeAt(i);
    return true;
  }

  private void removeAt(int i) {
    Entry removed = queue[i];
    removed.heapIndex = -1;
    int s = --size;
    Entry last = queue[s];
    queue[s] = null;
    if (s != i) {
      siftDown(i, last);
      if (queue[i] == last) {
        siftUp(i, last);
      }
    }
  }

  private void siftUp(int k, Entry e) {
    while (k > 0) {
      int parent = (k - 1) >>> 1;
      Entry p = queue[parent];
      if (!e.before(p)) {
        break;
      }
      queue[k] = p;
      p.heapIndex = k;
      k = parent;
    }
    queue[k] = e;
    e.heapIndex = k;
  }

  private void siftDown(int k, Entry e) {
    int half = size >>> 1;
    while (k < half) {
      int child = (k << 1) + 1;
      Entry c = queue[child];
      int right = child + 1;
      if (right < size && queue[right].before(c)) {
        c = queue[child = right];
      }
      if (!c.before(e)) {
        break;
      }
      queue[k] = c;
      c.heapIndex = k;
      k = child;
    }
    queue[k] = e;
    e.heapIndex = k;
  }
}
