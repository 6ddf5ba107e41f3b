package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A change of a job written between a worker's take of its fire and the run's start mark (a store
 * that batches runs marks each row only at the version the engine took: {@code SCHEDULED} at that
 * version becomes {@code RUNNING}). The change gives the row a new version, so the mark misses it.
 * Before, the run then went unmarked, and a crash during it re-ran the fire without {@code
 * ctx.recovery()} (seen in the H2 soak's race jobs). Now the run is marked again, by the change
 * when it sees the run going, else by the worker before the job's body starts.
 *
 * <p>Deterministic: the store holds the worker's mark until the test has made the change; the job's
 * body reads the row's state when it starts.
 */
class RunMarkAfterChangeTest {
  private final ManualClock clock = new ManualClock(Harness.T0);
  private final InMemoryStore target = new InMemoryStore();
  private final CountDownLatch marking = new CountDownLatch(1);
  private final CountDownLatch go = new CountDownLatch(1);
  private final AtomicBoolean heldOne = new AtomicBoolean();
  private final BlockingQueue<JobState> seenByRuns = new ArrayBlockingQueue<>(16);
  private KairosScheduler scheduler;

  /**
   * An in-memory store that batches runs; it holds the first batch of marks until {@link #go}, and,
   * when {@code dropOthers}, drops marks sent from any thread but the one writing that first batch
   * (as if the change had not seen the run going).
   */
  private JobStore store(boolean dropOthers) {
    Thread[] marker = new Thread[1];
    return (JobStore)
        Proxy.newProxyInstance(
            JobStore.class.getClassLoader(),
            new Class<?>[] {JobStore.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "batchesRuns":
                  return true;
                case "runsStarted":
                  if (heldOne.compareAndSet(false, true)) {
                    marker[0] = Thread.currentThread();
                    marking.countDown();
                    assertThat(go.await(20, TimeUnit.SECONDS)).isTrue();
                  } else if (dropOthers && Thread.currentThread() != marker[0]) {
                    return null;
                  }
                  break;
                default:
                  break;
              }
              try {
                return method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @AfterEach
  void close() {
    go.countDown();
    if (scheduler != null) {
      scheduler.close();
    }
  }

  private void start(boolean dropOthers) {
    scheduler =
        Engines.build(
            Kairos.builder()
                .store(store(dropOthers))
                .clock(clock)
                .workers(2)
                .handler("h", ctx -> seenByRuns.add(target.find(ctx.key()).orElseThrow().state())));
    scheduler.open();
    scheduler.schedule(spec(Duration.ofSeconds(10)));
    scheduler.start();
  }

  private static JobSpec spec(Duration period) {
    return JobSpec.named("j").handler("h").fixedRate(period).startAt(Harness.T0);
  }

  @Test
  void aRedefinitionBetweenTakeAndMark_leavesTheRunMarked() throws Exception {
    start(false);
    assertThat(marking.await(20, TimeUnit.SECONDS)).isTrue();
    long before = target.find("j").orElseThrow().version();

    scheduler.schedule(spec(Duration.ofSeconds(7))); // a new version: the held mark will miss it
    assertThat(target.find("j").orElseThrow().version()).isGreaterThan(before);
    go.countDown();

    assertThat(seenByRuns.poll(20, TimeUnit.SECONDS)).isEqualTo(JobState.RUNNING);
  }

  @Test
  void whenTheChangeDoesNotSeeTheRun_theWorkerMarksItAgain() throws Exception {
    start(true);
    assertThat(marking.await(20, TimeUnit.SECONDS)).isTrue();

    scheduler.schedule(spec(Duration.ofSeconds(7)));
    go.countDown();

    assertThat(seenByRuns.poll(20, TimeUnit.SECONDS)).isEqualTo(JobState.RUNNING);
  }

  @Test
  void aRunWithoutAChange_isMarkedOnce_andWrittenBackScheduled() throws Exception {
    start(false);
    assertThat(marking.await(20, TimeUnit.SECONDS)).isTrue();
    go.countDown();

    assertThat(seenByRuns.poll(20, TimeUnit.SECONDS)).isEqualTo(JobState.RUNNING);
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> target.find("j").orElseThrow().stats().runCount() == 1);
    assertThat(target.find("j").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
  }
}
