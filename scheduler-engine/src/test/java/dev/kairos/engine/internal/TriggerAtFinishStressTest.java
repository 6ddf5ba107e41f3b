package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A worker finishes its run's entry in the same hold of the dispatcher's lock as its next take
 * ({@link Dispatcher#finishAndTake}), and gives the entry back unfinished when a trigger came
 * during the run. Here a {@code triggerNow} comes during or at the end of each of 2,000 one-shot
 * runs on four workers: for half of the jobs the run waits until the trigger has returned (so the
 * worker must apply it), for the other half it races the run's end (it lands during the run,
 * between the run and the finish, or after the finish, when it goes to the store). Each job runs
 * exactly twice: the trigger is neither lost nor applied twice.
 */
class TriggerAtFinishStressTest {
  private static final int JOBS = 2_000;

  @Test
  void aTriggerRacingTheEndOfARunFiresOnceMore() throws InterruptedException {
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    BlockingQueue<String> firstRunStarted = new LinkedBlockingQueue<>();
    Map<String, CountDownLatch> triggered = new ConcurrentHashMap<>();
    AtomicInteger beyondTwo = new AtomicInteger();
    Scheduler scheduler =
        Kairos.builder()
            .store(new InMemoryStore())
            .workers(4)
            .handler(
                "h",
                ctx -> {
                  int n =
                      runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
                  if (n == 1) {
                    firstRunStarted.add(ctx.key());
                    CountDownLatch held = triggered.get(ctx.key());
                    if (held != null) { // else the trigger races the rest of this run
                      held.await();
                    }
                  } else if (n > 2) {
                    beyondTwo.incrementAndGet();
                  }
                })
            .build();
    try {
      List<JobSpec> specs = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        specs.add(JobSpec.named("t" + i).handler("h").after(Duration.ZERO));
        if (i % 2 == 0) {
          triggered.put("t" + i, new CountDownLatch(1));
        }
      }
      scheduler.scheduleAll(specs);
      scheduler.start();
      for (int i = 0; i < JOBS; i++) {
        String key = firstRunStarted.poll(30, TimeUnit.SECONDS);
        assertThat(key).as("first runs started: %d", i).isNotNull();
        assertThat(scheduler.triggerNow(key)).isTrue();
        CountDownLatch held = triggered.get(key);
        if (held != null) {
          held.countDown();
        }
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(runs.values().stream().filter(n -> n.get() >= 2).count())
                      .isEqualTo(JOBS));
      // Every trigger has run; a second application of one would be due at once, as it was.
      assertThat(scheduler.job("t0")).isPresent();
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(beyondTwo.get()).isZero());
      assertThat(runs).hasSize(JOBS);
      assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(2));
    } finally {
      scheduler.close();
    }
  }
}
