package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class FireHeapTest {
  private long seq;

  private Entry entry(long due) {
    Entry e = new Entry("k" + seq, null);
    e.due = due;
    e.seq = seq++;
    return e;
  }

  /** Random adds, removals through the stored index and polls agree with a sorted reference. */
  @Test
  void randomOperations_matchASortedReference_andIndexesStayTrue() {
    Random random = new Random(42);
    FireHeap heap = new FireHeap();
    TreeSet<Entry> reference =
        new TreeSet<>(Comparator.<Entry>comparingLong(e -> e.due).thenComparingLong(e -> e.seq));
    List<Entry> live = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      int op = random.nextInt(10);
      if (op < 5 || live.isEmpty()) {
        Entry e = entry(random.nextInt(1000));
        heap.add(e);
        reference.add(e);
        live.add(e);
      } else if (op < 8) {
        Entry e = live.remove(random.nextInt(live.size()));
        assertThat(heap.remove(e)).isTrue();
        assertThat(e.heapIndex).isEqualTo(-1);
        reference.remove(e);
      } else {
        Entry polled = heap.poll();
        assertThat(polled).isSameAs(reference.pollFirst());
        assertThat(polled.heapIndex).isEqualTo(-1);
        live.remove(polled);
      }
      assertThat(heap.size()).isEqualTo(reference.size());
    }
    for (Entry e : live) {
      assertThat(e.heapIndex).isBetween(0, heap.size() - 1);
    }
  }

  @Test
  void equalDueTimes_comeOutInSequenceOrder() {
    FireHeap heap = new FireHeap();
    List<Entry> added = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      Entry e = entry(7);
      added.add(e);
      heap.add(e);
    }
    List<Entry> out = new ArrayList<>();
    for (Entry e; (e = heap.poll()) != null; ) {
      out.add(e);
    }
    assertThat(out).containsExactlyElementsOf(added);
  }

  @Test
  void remove_ofAnEntryNotQueued_isFalse() {
    FireHeap heap = new FireHeap();
    Entry e = entry(1);
    assertThat(heap.remove(e)).isFalse();
    heap.add(e);
    heap.poll();
    assertThat(heap.remove(e)).isFalse();
  }
}
