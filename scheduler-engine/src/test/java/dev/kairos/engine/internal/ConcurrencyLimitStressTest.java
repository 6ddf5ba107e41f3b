package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Retry;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Concurrency limits under load, real threads and the system clock. Seen to fail (fires stall: a
 * lost wake-up) with the hand-off of a freed permit to a waiting fire removed from {@code
 * Dispatcher.releasePermit}, and (more than two at once) with {@code Dispatcher.admit} always
 * admitting.
 */
class ConcurrencyLimitStressTest {

  /**
   * 8 workers, 3,000 one-shots due within one second over a group limit of 2 (handlers a, b), a
   * limit of 3 (c) and an unlimited handler; random run lengths, every tenth job fails its first
   * attempt and is retried, and the test thread unschedules 200 jobs meanwhile: no limit is ever
   * exceeded, every job not unscheduled succeeds exactly once, and an unscheduled one at most once.
   */
  @Test
  void randomRuns_limitsNeverExceeded_everyFireRunsOnce() throws Exception {
    int jobs = 3_000;
    Map<String, AtomicInteger> succeeded = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> inLimit =
        Map.of("ab", new AtomicInteger(), "c", new AtomicInteger());
    Map<String, AtomicInteger> maxInLimit =
        Map.of("ab", new AtomicInteger(), "c", new AtomicInteger());
    Set<String> unscheduled = ConcurrentHashMap.newKeySet();
    dev.kairos.Job body =
        ctx -> {
          String limit =
              switch (ctx.handler()) {
                case "a", "b" -> "ab";
                case "c" -> "c";
                default -> null;
              };
          if (limit != null) {
            int now = inLimit.get(limit).incrementAndGet();
            maxInLimit.get(limit).accumulateAndGet(now, Math::max);
          }
          try {
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
            int n = Integer.parseInt(ctx.key().substring(1));
            if (n % 10 == 0 && ctx.attempt() == 1) {
              throw new IllegalStateException("first attempt fails");
            }
            succeeded.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
          } finally {
            if (limit != null) {
              inLimit.get(limit).decrementAndGet();
            }
          }
        };
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(new InMemoryStore(0, false))
                .workers(8)
                .handler("a", body)
                .handler("b", body)
                .handler("c", body)
                .handler("free", body)
                .maxConcurrent("ab", 2, "a", "b")
                .maxConcurrent("c", 3));
    String[] handlers = {"a", "b", "c", "free", "a", "c"};
    try {
      s.start();
      Random random = new Random(11);
      Instant base = Instant.now().plusMillis(300);
      for (int i = 0; i < jobs; i++) {
        s.schedule(
            JobSpec.named("j" + i)
                .handler(handlers[i % handlers.length])
                .at(base.plusMillis(random.nextInt(1000)))
                .retry(Retry.backoff(2, Duration.ofMillis(1))));
      }
      for (int k = 0; k < 200; k++) {
        String key = "j" + (1 + random.nextInt(jobs - 1));
        if (s.unschedule(key)) {
          unscheduled.add(key);
        }
      }
      await() // every fire not unscheduled has run (none left waiting: no lost wake-up)
          .atMost(Duration.ofSeconds(120))
          .until(() -> succeeded.keySet().containsAll(expected(jobs, unscheduled)));
    } finally {
      s.close();
    }
    assertThat(maxInLimit.get("ab").get()).isBetween(1, 2);
    assertThat(maxInLimit.get("c").get()).isBetween(1, 3);
    for (int i = 0; i < jobs; i++) {
      String key = "j" + i;
      AtomicInteger n = succeeded.get(key);
      if (unscheduled.contains(key)) {
        assertThat(n == null ? 0 : n.get()).as(key).isLessThanOrEqualTo(1);
      } else {
        assertThat(n).as(key).isNotNull();
        assertThat(n.get()).as(key).isEqualTo(1);
      }
    }
  }

  private static Set<String> expected(int jobs, Set<String> unscheduled) {
    Set<String> keys = new java.util.HashSet<>();
    for (int i = 0; i < jobs; i++) {
      keys.add("j" + i);
    }
    keys.removeAll(unscheduled);
    return keys;
  }
}
