package dev.kairos.jdbc.internal;

import java.util.Arrays;

/**
 * A set of change stamps kept as a sorted array of primitive longs: the stamps a feed reader has
 * returned above its cursor. A read asks about every stamp of the unsettled window (thousands a
 * read at 1,000 fires/s), and a boxed tree set spent more time on that than the read's query did.
 * Not thread-safe: its reader serializes its reads.
 */
final class SortedStamps {
  private long[] values = new long[64];
  private int size;

  /** Whether the set holds {@code stamp}. */
  boolean contains(long stamp) {
    return Arrays.binarySearch(values, 0, size, stamp) >= 0;
  }

  /** How many stamps the set holds. */
  int size() {
    return size;
  }

  /** Adds these stamps, in ascending order without repeats; those held already are kept once. */
  void addAll(long[] sorted, int count) {
    if (count == 0) {
      return;
    }
    long[] merged = new long[Math.max(values.length, Integer.highestOneBit(size + count) << 1)];
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < size || j < count) {
      long next;
      if (j == count || (i < size && values[i] <= sorted[j])) {
        next = values[i++];
        if (j < count && sorted[j] == next) {
          j++;
        }
      } else {
        next = sorted[j++];
      }
      merged[n++] = next;
    }
    values = merged;
    size = n;
  }

  /** Removes every stamp at or below {@code bound}. */
  void removeUpTo(long bound) {
    int at = Arrays.binarySearch(values, 0, size, bound);
    int from = at >= 0 ? at + 1 : -at - 1;
    if (from > 0) {
      System.arraycopy(values, from, values, 0, size - from);
      size -= from;
    }
  }

  /** Removes every stamp. */
  void clear() {
    size = 0;
  }
}
