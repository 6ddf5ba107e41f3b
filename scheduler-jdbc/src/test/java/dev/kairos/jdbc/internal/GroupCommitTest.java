package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class GroupCommitTest {
  private final GroupCommit<String, String> commits = new GroupCommit<>(Function.identity());
  private final AtomicInteger transactions = new AtomicInteger();

  /** A commit takes time, as a database's does: callers arriving meanwhile queue up behind it. */
  private static void commitLatency() {
    java.util.concurrent.locks.LockSupport.parkNanos(50_000);
  }

  private List<String> batch(List<String> items) {
    transactions.incrementAndGet();
    commitLatency();
    if (items.contains("bad")) {
      throw new IllegalStateException("batch with a bad item");
    }
    return items.stream().map(i -> "ok:" + i).toList();
  }

  private String single(String item) {
    transactions.incrementAndGet();
    commitLatency();
    if (item.equals("bad")) {
      throw new IllegalStateException("bad item");
    }
    return "ok:" + item;
  }

  /** 16 threads × 500 items: every caller gets its own result, in fewer transactions. */
  @Test
  void concurrentCallers_eachGetsItsOwnResult_andCommitsAreShared() throws Exception {
    int threads = 16;
    int each = 500;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> futures = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  int ok = 0;
                  for (int i = 0; i < each; i++) {
                    String item = thread + "-" + i;
                    if (commits.submit(item, this::batch, this::single).equals("ok:" + item)) {
                      ok++;
                    }
                  }
                  return ok;
                }));
      }
      go.countDown();
      for (Future<Integer> f : futures) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(each);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(transactions.get()).isLessThan(threads * each);
  }

  @Test
  void failingBatch_isRetriedOneByOne_soOnlyTheBadItemFails() {
    assertThatThrownBy(() -> commits.submit("bad", this::batch, this::single))
        .hasMessage("bad item");
    assertThat(commits.submit("good", this::batch, this::single)).isEqualTo("ok:good");
  }
}
