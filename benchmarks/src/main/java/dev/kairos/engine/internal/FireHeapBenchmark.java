package dev.kairos.engine.internal;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The dispatcher's heap against two baselines, at 1k, 100k and 1M queued entries, in the same run:
 *
 * <ul>
 *   <li>{@code fireHeap}: Kairos's {@link FireHeap}, entries carrying their heap index (removal in
 *       O(log n), like ScheduledThreadPoolExecutor's DelayedWorkQueue);
 *   <li>{@code priorityQueue}: {@link PriorityQueue}, the "no index" baseline, whose {@code
 *       remove(Object)} is a linear search;
 *   <li>{@code treeSet}: a {@link TreeSet} on (due, seq), the ordered-set alternative.
 * </ul>
 *
 * Two operations keep the size constant: {@code takeOffer} takes the head and offers it again later
 * (the "hold" model: what every fire does), {@code cancelOffer} removes a random queued entry and
 * offers it again (what pause, unschedule and reschedule do).
 *
 * <p>In package {@code dev.kairos.engine.internal} of the benchmarks module because the heap and
 * its entries are package-private; the engine does not use JPMS, so the package is shared on the
 * class path (and in the shaded jar).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FireHeapBenchmark {
  /** Due times are spread over this many nanoseconds per queued entry. */
  private static final long SPREAD = 1_000;

  private static final Comparator<Entry> ORDER =
      Comparator.<Entry>comparingLong(e -> e.due).thenComparingLong(e -> e.seq);

  /** The entries and a random source, shared by every queue kind. */
  @State(Scope.Thread)
  public static class Entries {
    @Param({"1000", "100000", "1000000"})
    public int size;

    Entry[] entries;
    SplittableRandom random;
    long seq;

    @Setup(Level.Trial)
    public void fill() {
      random = new SplittableRandom(42);
      entries = new Entry[size];
      for (int i = 0; i < size; i++) {
        Entry e = new Entry("job-" + i, null);
        e.due = random.nextLong(SPREAD * size);
        e.seq = seq++;
        entries[i] = e;
      }
    }

    /** Moves e to a later due time with a fresh sequence number, as a re-queue does. */
    void later(Entry e) {
      e.due += 1 + random.nextLong(2 * SPREAD * size);
      e.seq = seq++;
    }

    Entry any() {
      return entries[random.nextInt(entries.length)];
    }
  }

  @State(Scope.Thread)
  public static class Heap {
    FireHeap heap;

    @Setup(Level.Trial)
    public void fill(Entries es) {
      heap = new FireHeap();
      for (Entry e : es.entries) {
        heap.add(e);
      }
    }
  }

  @State(Scope.Thread)
  public static class Queue {
    PriorityQueue<Entry> queue;

    @Setup(Level.Trial)
    public void fill(Entries es) {
      queue = new PriorityQueue<>(es.entries.length, ORDER);
      for (Entry e : es.entries) {
        queue.add(e);
      }
    }
  }

  @State(Scope.Thread)
  public static class Tree {
    TreeSet<Entry> tree;

    @Setup(Level.Trial)
    public void fill(Entries es) {
      tree = new TreeSet<>(ORDER);
      for (Entry e : es.entries) {
        tree.add(e);
      }
    }
  }

  @Benchmark
  public Entry fireHeap_takeOffer(Heap h, Entries es) {
    Entry e = h.heap.poll();
    es.later(e);
    h.heap.add(e);
    return e;
  }

  @Benchmark
  public Entry fireHeap_cancelOffer(Heap h, Entries es) {
    Entry e = es.any();
    h.heap.remove(e);
    es.later(e);
    h.heap.add(e);
    return e;
  }

  @Benchmark
  public Entry priorityQueue_takeOffer(Queue q, Entries es) {
    Entry e = q.queue.poll();
    es.later(e);
    q.queue.add(e);
    return e;
  }

  @Benchmark
  public Entry priorityQueue_cancelOffer(Queue q, Entries es) {
    Entry e = es.any();
    q.queue.remove(e);
    es.later(e);
    q.queue.add(e);
    return e;
  }

  @Benchmark
  public Entry treeSet_takeOffer(Tree t, Entries es) {
    Entry e = t.tree.pollFirst();
    es.later(e);
    t.tree.add(e);
    return e;
  }

  @Benchmark
  public Entry treeSet_cancelOffer(Tree t, Entries es) {
    Entry e = es.any();
    t.tree.remove(e);
    es.later(e);
    t.tree.add(e);
    return e;
  }
}
