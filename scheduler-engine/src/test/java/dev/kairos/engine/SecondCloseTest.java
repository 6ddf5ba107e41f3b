package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.spi.JobStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A job that shuts its application down calls {@code close()} from its run, which returns without
 * waiting for that run; the application's own shutdown then calls close() again. That second call
 * returned at once, while the run went on and the store was still open (an application deleting its
 * database file or exiting after close() lost the run's write-back). Now it waits for the close to
 * end, applying the grace period to the run that began it.
 */
class SecondCloseTest {
  private final CountDownLatch storeClosed = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch firstCloseReturned = new CountDownLatch(1);
  private final AtomicBoolean runInterrupted = new AtomicBoolean();
  private final AtomicReference<Scheduler> scheduler = new AtomicReference<>();

  /** An in-memory store that counts down storeClosed when the scheduler closes it. */
  private JobStore store() {
    InMemoryStore target = new InMemoryStore();
    return (JobStore)
        Proxy.newProxyInstance(
            JobStore.class.getClassLoader(),
            new Class<?>[] {JobStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("close")) {
                storeClosed.countDown();
              }
              try {
                return method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** Starts a scheduler whose job calls close(), then waits for release (or an interrupt). */
  private Scheduler start(Duration grace) throws InterruptedException {
    Scheduler s =
        Kairos.builder()
            .store(store())
            .workers(2)
            .gracePeriod(grace)
            .handler(
                "closer",
                ctx -> {
                  scheduler.get().close();
                  firstCloseReturned.countDown();
                  try {
                    release.await();
                  } catch (InterruptedException e) {
                    runInterrupted.set(true);
                  }
                })
            .build();
    scheduler.set(s);
    s.schedule(JobSpec.named("closer").handler("closer").after(Duration.ofMillis(50)));
    s.start();
    assertThat(firstCloseReturned.await(10, TimeUnit.SECONDS)).as("the run's close()").isTrue();
    return s;
  }

  @Test
  void secondClose_waitsUntilTheRunThatBeganTheCloseEnds_andTheStoreIsClosed() throws Exception {
    Scheduler s = start(Duration.ofSeconds(30));
    AtomicBoolean secondReturned = new AtomicBoolean();
    Thread second =
        new Thread(
            () -> {
              s.close();
              secondReturned.set(true);
            },
            "application-shutdown");
    second.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                second.getState() == Thread.State.TIMED_WAITING
                    || second.getState() == Thread.State.TERMINATED);
    assertThat(secondReturned).as("returned while the run goes on").isFalse();
    assertThat(storeClosed.getCount()).as("store still open").isEqualTo(1);

    release.countDown(); // the run ends: its thread writes it back and ends the close
    second.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(secondReturned).isTrue();
    assertThat(storeClosed.getCount()).as("store closed before close() returned").isZero();
    assertThat(runInterrupted).as("the run was left to end").isFalse();
  }

  @Test
  void secondClose_afterTheGracePeriod_interruptsTheRunThatBeganTheClose() throws Exception {
    Scheduler s = start(Duration.ofMillis(200));
    s.close(); // the run waits for release, which never comes: the grace period applies to it
    assertThat(runInterrupted).as("the run that began the close was interrupted").isTrue();
    assertThat(storeClosed.getCount()).as("store closed before close() returned").isZero();
  }
}
