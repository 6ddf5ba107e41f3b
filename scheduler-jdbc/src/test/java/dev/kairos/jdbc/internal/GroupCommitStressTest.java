package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many callers, random commit latency and random failures: every caller gets its own outcome, every
 * item that succeeded was written exactly once (and a failed one never), each batch is in key
 * order, no key is in two writes at once, at most {@code lanes} writes overlap, and nothing hangs.
 */
class GroupCommitStressTest {
  /** An item; {@code bad} always fails, others fail at random, batches or singles alike. */
  record Item(String id, String key, boolean bad) {}

  private final Map<String, Integer> written = new ConcurrentHashMap<>();
  private final Set<String> keysInFlight = new HashSet<>(); // guarded by itself
  private final Queue<String> violations = new ConcurrentLinkedQueue<>();
  private final AtomicInteger writing = new AtomicInteger();
  private final AtomicInteger mostWriting = new AtomicInteger();
  private final AtomicInteger batches = new AtomicInteger();

  private void enter(List<Item> items) {
    for (int i = 1; i < items.size(); i++) {
      if (items.get(i - 1).key().compareTo(items.get(i).key()) > 0) {
        violations.add("batch not in key order: " + items);
      }
    }
    synchronized (keysInFlight) {
      Set<String> mine = new HashSet<>();
      for (Item it : items) {
        mine.add(it.key());
      }
      for (String k : mine) {
        if (!keysInFlight.add(k)) {
          violations.add("key " + k + " in two writes at once");
        }
      }
    }
    int now = writing.incrementAndGet();
    mostWriting.accumulateAndGet(now, Math::max);
    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 300_000)); // a commit's latency
  }

  private void leave(List<Item> items) {
    writing.decrementAndGet();
    synchronized (keysInFlight) {
      for (Item it : items) {
        keysInFlight.remove(it.key());
      }
    }
  }

  private List<String> batch(List<Item> items) {
    batches.incrementAndGet();
    enter(items);
    try {
      if (items.stream().anyMatch(Item::bad) || ThreadLocalRandom.current().nextInt(10) == 0) {
        throw new IllegalStateException("batch rolled back");
      }
      for (Item it : items) {
        written.merge(it.id(), 1, Integer::sum);
      }
      return items.stream().map(it -> "ok:" + it.id()).toList();
    } finally {
      leave(items);
    }
  }

  private String single(Item item) {
    enter(List.of(item));
    try {
      if (item.bad() || ThreadLocalRandom.current().nextInt(20) == 0) {
        throw new IllegalStateException("failed:" + item.id());
      }
      written.merge(item.id(), 1, Integer::sum);
      return "ok:" + item.id();
    } finally {
      leave(List.of(item));
    }
  }

  @ParameterizedTest(name = "{0} lane(s)")
  @ValueSource(ints = {1, 2, 4})
  void manyCallers_eachGetsItsOwnOutcome_eachItemWrittenOnce(int lanes) {
    GroupCommit<Item, String> commits = new GroupCommit<>(Item::key, lanes);
    int threads = 16;
    int each = 400;
    int keys = 24; // fewer keys than items in flight: the same key often arrives twice at once
    Queue<String> succeeded = new ConcurrentLinkedQueue<>();
    Queue<String> failed = new ConcurrentLinkedQueue<>();
    assertTimeoutPreemptively(
        Duration.ofSeconds(120),
        () -> {
          ExecutorService pool = Executors.newFixedThreadPool(threads);
          CountDownLatch go = new CountDownLatch(1);
          List<Future<?>> futures = new ArrayList<>();
          try {
            for (int t = 0; t < threads; t++) {
              int thread = t;
              futures.add(
                  pool.submit(
                      () -> {
                        go.await();
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (int i = 0; i < each; i++) {
                          String id = thread + "-" + i;
                          Item item =
                              new Item(id, "k" + random.nextInt(keys), random.nextInt(50) == 0);
                          try {
                            String result = commits.submit(item, this::batch, this::single);
                            if (!result.equals("ok:" + id)) {
                              violations.add(id + " got " + result);
                            }
                            succeeded.add(id);
                          } catch (IllegalStateException e) {
                            if (!e.getMessage().equals("failed:" + id)) {
                              violations.add(id + " got another's error: " + e.getMessage());
                            }
                            failed.add(id);
                          }
                        }
                        return null;
                      }));
            }
            go.countDown();
            for (Future<?> f : futures) {
              f.get();
            }
          } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
          }
        });
    assertThat(violations).isEmpty();
    assertThat(succeeded.size() + failed.size()).isEqualTo(threads * each);
    assertThat(failed).isNotEmpty();
    for (String id : succeeded) {
      assertThat(written.get(id)).as("writes of %s", id).isEqualTo(1);
    }
    for (String id : failed) {
      assertThat(written).doesNotContainKey(id);
    }
    assertThat(written).hasSize(succeeded.size());
    assertThat(mostWriting.get()).isLessThanOrEqualTo(lanes);
    if (lanes > 1) {
      assertThat(mostWriting.get()).as("writes overlapped").isGreaterThan(1);
    }
    assertThat(batches.get()).as("items shared transactions").isPositive();
  }

  /** One key for every caller: its writes never overlap, and every caller still gets through. */
  @Test
  void oneKey_neverInTwoWritesAtOnce() {
    GroupCommit<Item, String> commits = new GroupCommit<>(Item::key, 4);
    AtomicInteger ok = new AtomicInteger();
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          ExecutorService pool = Executors.newFixedThreadPool(8);
          try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
              int thread = t;
              futures.add(
                  pool.submit(
                      () -> {
                        for (int i = 0; i < 200; i++) {
                          Item item = new Item(thread + "-" + i, "same", false);
                          try {
                            commits.submit(item, this::batch, this::single);
                            ok.incrementAndGet();
                          } catch (IllegalStateException e) {
                            // a random failure: its own
                          }
                        }
                        return null;
                      }));
            }
            for (Future<?> f : futures) {
              f.get();
            }
          } finally {
            pool.shutdownNow();
          }
        });
    assertThat(violations).isEmpty();
    assertThat(mostWriting.get()).isEqualTo(1);
    assertThat(written).hasSize(ok.get());
  }

  /**
   * A caller queued behind a busy lane (one lane) or behind its own key in flight (four lanes) is
   * woken when that batch completes and combines, with no later caller to carry it.
   */
  @ParameterizedTest(name = "{0} lane(s), key {1}")
  @org.junit.jupiter.params.provider.CsvSource({"1, b", "4, a"})
  void aQueuedCaller_isWokenWhenTheBatchAheadCompletes(int lanes, String secondKey)
      throws Exception {
    GroupCommit<String, String> commits = new GroupCommit<>(s -> s.substring(0, 1), lanes);
    CountDownLatch inFirst = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<String> first =
          pool.submit(
              () ->
                  commits.submit(
                      "a1",
                      b -> b,
                      one -> {
                        inFirst.countDown();
                        try {
                          release.await();
                        } catch (InterruptedException e) {
                          throw new IllegalStateException(e);
                        }
                        return one;
                      }));
      assertThat(inFirst.await(10, TimeUnit.SECONDS)).isTrue();
      java.util.concurrent.atomic.AtomicReference<Thread> second =
          new java.util.concurrent.atomic.AtomicReference<>();
      Future<String> queued =
          pool.submit(
              () -> {
                second.set(Thread.currentThread());
                return commits.submit(secondKey + "2", b -> b, one -> one);
              });
      assertTimeoutPreemptively(
          Duration.ofSeconds(10),
          () -> {
            while (second.get() == null || second.get().getState() != Thread.State.WAITING) {
              Thread.sleep(1);
            }
          });
      release.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("a1");
      assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo(secondKey + "2");
    } finally {
      pool.shutdownNow();
    }
  }

  /** An Error while writing reaches every caller in the batch; later callers are not stuck. */
  @Test
  void anError_completesItsBatch_andTheNextCallerGetsThrough() {
    GroupCommit<String, String> commits = new GroupCommit<>(s -> s, 2);
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          assertThatThrownBy(
                  () ->
                      commits.submit(
                          "a",
                          b -> {
                            throw new AssertionError("boom");
                          },
                          one -> {
                            throw new AssertionError("boom");
                          }))
              .isInstanceOf(AssertionError.class)
              .hasMessage("boom");
          assertThat(commits.submit("b", b -> b, s -> "ok:" + s)).isEqualTo("ok:b");
        });
  }
}
