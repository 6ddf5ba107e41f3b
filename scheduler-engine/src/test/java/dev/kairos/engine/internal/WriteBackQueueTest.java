package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The write-back queue's linger: a writer waits for more items up to the linger, and stops waiting
 * at once for an item that may not wait, a full batch or {@link WriteBackQueue#drain}. The lingers
 * here are an hour long, so a batch that arrives before the drain can only have been released by
 * one of those; no test depends on a sleep.
 */
class WriteBackQueueTest {
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  /** An item: its name, and whether it may wait for the linger. */
  private record Item(String name, boolean mayWait) {}

  private final BlockingQueue<List<Item>> batches = new LinkedBlockingQueue<>();
  private WriteBackQueue<Item> queue;

  private WriteBackQueue<Item> start(long lingerNanos, int writers) {
    queue = new WriteBackQueue<>(b -> batches.add(List.copyOf(b)), lingerNanos, Item::mayWait);
    queue.start(writers, "test");
    return queue;
  }

  @AfterEach
  void stop() {
    if (queue != null) {
      queue.drain(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
      queue.join(TimeUnit.SECONDS.toNanos(10));
    }
  }

  private List<Item> nextBatch() throws InterruptedException {
    List<Item> b = batches.poll(30, TimeUnit.SECONDS);
    assertThat(b).as("a batch written within 30 s").isNotNull();
    return b;
  }

  private static List<String> names(List<Item> batch) {
    return batch.stream().map(Item::name).toList();
  }

  @Test
  void itemsThatMayWaitShareOneBatchUntilTheDrain() throws InterruptedException {
    start(HOUR, 1);
    queue.submit(new Item("a", true));
    queue.submit(new Item("b", true));
    queue.submit(new Item("c", true));
    assertThat(batches.poll(200, TimeUnit.MILLISECONDS)).as("nothing before the drain").isNull();
    assertThat(queue.drain(System.nanoTime() + TimeUnit.SECONDS.toNanos(30))).isTrue();
    assertThat(names(nextBatch())).containsExactly("a", "b", "c");
    assertThat(batches).isEmpty();
  }

  @Test
  void anItemThatMayNotWaitEndsTheLingerForTheWholeBatch() throws InterruptedException {
    start(HOUR, 1);
    queue.submit(new Item("a", true));
    queue.submit(new Item("now", false));
    // An hour's linger and "a" may wait: only the urgent item can have ended it, and the writer
    // cannot have taken "a" alone.
    assertThat(names(nextBatch())).containsExactly("a", "now");
  }

  @Test
  void aFullBatchIsWrittenWithoutWaiting() throws InterruptedException {
    start(HOUR, 1);
    for (int i = 0; i < WriteBackQueue.MAX_BATCH; i++) {
      queue.submit(new Item("i" + i, true));
    }
    List<Item> b = nextBatch();
    assertThat(b).hasSize(WriteBackQueue.MAX_BATCH);
    assertThat(b.get(0).name()).isEqualTo("i0");
  }

  @Test
  void withoutALingerEachItemIsWrittenAtOnce() throws InterruptedException {
    queue = new WriteBackQueue<>(b -> batches.add(List.copyOf(b)));
    queue.start(1, "test");
    queue.submit(new Item("a", true));
    assertThat(names(nextBatch())).containsExactly("a");
  }

  /** A {@code triggerNow()} during a run: the write-backs already lingering go at once. */
  @Test
  void hurryEndsALingerAtOnce() throws InterruptedException {
    start(HOUR, 1);
    queue.submit(new Item("a", true));
    queue.submit(new Item("b", true));
    queue.hurry();
    assertThat(names(nextBatch())).containsExactly("a", "b");
  }

  /** A hurry that comes before its write-back (the run still going) still keeps it from waiting. */
  @Test
  void hurryBeforeTheItemArrivesKeepsItFromLingering() throws InterruptedException {
    start(HOUR, 1);
    queue.hurry();
    queue.submit(new Item("triggered", true));
    assertThat(names(nextBatch())).containsExactly("triggered");
    queue.submit(new Item("later", true)); // the hurry ended with its batch: this one lingers
    assertThat(batches.poll(200, TimeUnit.MILLISECONDS)).as("lingering again").isNull();
  }

  @Test
  void urgencyDoesNotOutliveItsBatch() throws InterruptedException {
    start(HOUR, 1);
    queue.submit(new Item("now", false));
    assertThat(names(nextBatch())).containsExactly("now");
    queue.submit(new Item("later", true)); // the queue was emptied: this one lingers again
    assertThat(batches.poll(200, TimeUnit.MILLISECONDS)).as("lingering again").isNull();
    queue.drain(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
    assertThat(names(nextBatch())).containsExactly("later");
  }

  /**
   * Many producers, two writers, a short linger and a mix of urgent items: every item is written
   * exactly once, each producer's items in the order it submitted them within a batch, and the
   * drain leaves nothing behind (a lost wake-up would leave an item queued past the drain's
   * deadline, or a writer asleep with items queued).
   */
  @Test
  void stressEveryItemWrittenOnce() throws InterruptedException {
    int producers = 8;
    int perProducer = 5_000;
    Set<String> seen = ConcurrentHashMap.newKeySet();
    AtomicInteger duplicates = new AtomicInteger();
    AtomicInteger batchCount = new AtomicInteger();
    AtomicInteger outOfOrder = new AtomicInteger();
    queue =
        new WriteBackQueue<>(
            b -> {
              batchCount.incrementAndGet();
              int[] last = new int[producers];
              Arrays.fill(last, -1);
              for (Item i : b) {
                if (!seen.add(i.name())) {
                  duplicates.incrementAndGet();
                }
                String[] parts = i.name().split("-");
                int p = Integer.parseInt(parts[0]);
                int n = Integer.parseInt(parts[1]);
                if (n <= last[p]) {
                  outOfOrder.incrementAndGet();
                }
                last[p] = n;
              }
            },
            TimeUnit.MICROSECONDS.toNanos(200),
            Item::mayWait);
    queue.start(2, "stress");
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      int id = p;
      Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < perProducer; i++) {
                  queue.submit(new Item(id + "-" + i, i % 7 != 0));
                  if (i % 500 == 0) {
                    Thread.yield();
                  }
                }
              });
      t.start();
      threads.add(t);
    }
    go.countDown();
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(t.isAlive()).isFalse();
    }
    assertThat(queue.drain(System.nanoTime() + TimeUnit.SECONDS.toNanos(30))).isTrue();
    assertThat(duplicates.get()).isZero();
    Set<String> expected = new HashSet<>();
    for (int p = 0; p < producers; p++) {
      for (int i = 0; i < perProducer; i++) {
        expected.add(p + "-" + i);
      }
    }
    assertThat(seen).hasSize(expected.size()).containsAll(expected);
    assertThat(outOfOrder.get()).isZero();
    assertThat(batchCount.get()).isLessThan(producers * perProducer); // batches did form
  }

  // ---- retries (retryLater) ---------------------------------------------------------------------

  private final BlockingQueue<String> retried = new LinkedBlockingQueue<>();
  private final List<String> abandoned = new java.util.concurrent.CopyOnWriteArrayList<>();

  private WriteBackQueue<Item> startWithRetries(int writers) {
    queue =
        new WriteBackQueue<>(
            b -> batches.add(List.copyOf(b)),
            0,
            item -> false,
            item -> retried.add(item.name()),
            item -> abandoned.add(item.name()));
    queue.start(writers, "test");
    return queue;
  }

  /**
   * A retry waiting for its delay holds no writer: with one writer, a batch submitted after a retry
   * due in an hour is written at once, and the retry is not.
   */
  @Test
  void aRetryWaitingForItsDelayHoldsUpNoBatch() throws InterruptedException {
    startWithRetries(1);
    assertThat(queue.retryLater(new Item("stuck", true), HOUR)).isTrue();
    queue.submit(new Item("a", true));
    assertThat(names(nextBatch())).containsExactly("a");
    assertThat(retried).isEmpty();
  }

  /** Due retries go to the retry writer alone, earliest first, never inside a batch. */
  @Test
  void dueRetriesAreWrittenAloneEarliestFirst() throws InterruptedException {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    queue =
        new WriteBackQueue<>(
            b -> {
              held.countDown();
              awaitQuietly(release);
              batches.add(List.copyOf(b));
            },
            0,
            item -> false,
            item -> retried.add(item.name()),
            item -> abandoned.add(item.name()));
    queue.start(1, "test");
    queue.submit(new Item("first", true));
    assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
    // The only writer is busy; the retry put back second is due first.
    queue.retryLater(new Item("later", true), TimeUnit.MILLISECONDS.toNanos(200));
    queue.retryLater(new Item("earlier", true), 0);
    release.countDown();
    assertThat(retried.poll(30, TimeUnit.SECONDS)).isEqualTo("earlier");
    assertThat(retried.poll(30, TimeUnit.SECONDS)).isEqualTo("later");
    assertThat(names(nextBatch())).containsExactly("first");
    assertThat(batches).isEmpty();
  }

  /**
   * The drain waits for a retry as for a queued item until its deadline; a retry still waiting then
   * is abandoned, and one put back after the stop is refused.
   */
  @Test
  void aRetryLeftAtTheDrainsDeadlineIsAbandonedAndLaterOnesRefused() {
    startWithRetries(1);
    queue.retryLater(new Item("stuck", true), HOUR);
    long t0 = System.nanoTime();
    assertThat(queue.drain(t0 + TimeUnit.MILLISECONDS.toNanos(300))).isFalse();
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
    queue.join(TimeUnit.SECONDS.toNanos(30));
    assertThat(abandoned).containsExactly("stuck");
    assertThat(retried).isEmpty();
    assertThat(queue.retryLater(new Item("after", true), 0)).isFalse();
  }

  /** A retry due before the drain's deadline is written and the drain reports nothing left. */
  @Test
  void aRetryDueBeforeTheDeadlineIsWrittenBeforeTheDrainReturns() {
    startWithRetries(1);
    queue.retryLater(new Item("soon", true), TimeUnit.MILLISECONDS.toNanos(50));
    assertThat(queue.drain(System.nanoTime() + TimeUnit.SECONDS.toNanos(30))).isTrue();
    assertThat(retried).containsExactly("soon");
    assertThat(abandoned).isEmpty();
  }

  /**
   * Batches and due retries take turns: a retry due while batches keep queuing is written after the
   * batch in hand, before the next one (and a batch waits for one retry at most).
   */
  @Test
  void batchesAndDueRetriesTakeTurns() throws InterruptedException {
    List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(4);
    queue =
        new WriteBackQueue<>(
            b -> {
              if (b.get(0).name().equals("b1")) {
                held.countDown();
                awaitQuietly(release);
              }
              order.add(b.get(0).name());
              done.countDown();
            },
            0,
            item -> false,
            item -> {
              order.add(item.name());
              done.countDown();
            },
            item -> abandoned.add(item.name()));
    queue.start(1, "test");
    queue.submit(new Item("b1", true));
    assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
    queue.retryLater(new Item("r1", true), 0);
    queue.retryLater(new Item("r2", true), 0);
    queue.submit(new Item("b2", true));
    release.countDown();
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(order).containsExactly("b1", "r1", "b2", "r2");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
