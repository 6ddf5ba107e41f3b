package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.spi.JobRecord;
import dev.kairos.tck.StderrCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An application that shuts down from a listener: on a database store {@code runWrittenBack} is
 * called on a writer thread of the write-back queue, which the close waits for. close() called
 * there waited for its own thread until its 5 s deadline ({@link KairosScheduler#INTERRUPT_WAIT}),
 * then logged an ERROR that write-backs were left unwritten. Now it stops taking fires, hands the
 * rest of the close to a thread of its own and returns; a close() from the application's thread
 * afterwards returns once the store is closed, every run written back.
 */
class CloseFromAListenerTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgres"})
  void closeFromRunWrittenBack_returnsAtOnce_everyRunWrittenBack(String server) throws Exception {
    CloseFromARunTest.withStores(server, dir, CloseFromAListenerTest::run);
  }

  private static void run(Supplier<JdbcStore> stores) throws Exception {
    AtomicReference<Scheduler> scheduler = new AtomicReference<>();
    AtomicLong closeTookNanos = new AtomicLong(-1);
    AtomicReference<String> closingThread = new AtomicReference<>();
    CountDownLatch returned = new CountDownLatch(1);
    String id = "listener-closer-" + System.nanoTime();
    try (StderrCapture log = new StderrCapture()) {
      Scheduler s =
          Kairos.builder()
              .store(stores.get())
              .instanceId(id)
              .workers(2)
              .gracePeriod(Duration.ofSeconds(20))
              .handler("tick", ctx -> {})
              .listener(
                  new SchedulerListener() {
                    @Override
                    public void runWrittenBack(JobContext c, Duration took) {
                      if (c.key().equals("closer") && closingThread.get() == null) {
                        closingThread.set(Thread.currentThread().getName());
                        long t0 = System.nanoTime();
                        scheduler.get().close();
                        closeTookNanos.set(System.nanoTime() - t0);
                        returned.countDown();
                      }
                    }
                  })
              .build();
      scheduler.set(s);
      for (int i = 0; i < 20; i++) {
        s.schedule(JobSpec.named("tick-" + i).handler("tick").fixedRate(Duration.ofMillis(10)));
      }
      s.schedule(JobSpec.named("closer").handler("tick").after(Duration.ofMillis(300)));
      s.start();
      assertThat(returned.await(30, TimeUnit.SECONDS)).as("close() returned").isTrue();
      assertThat(closingThread.get()).startsWith("kairos-writeback-" + id);
      // It used to wait for its own thread until the 5 s deadline; now it waits for nothing.
      assertThat(Duration.ofNanos(closeTookNanos.get()))
          .isLessThan(KairosScheduler.INTERRUPT_WAIT.dividedBy(2));

      s.close(); // from the application's thread: returns once the close has ended
      try (JdbcStore store = stores.get()) {
        store.open(); // an H2 file opens only once the first store has closed it
        assertThat(store.jobStore().find("closer").orElseThrow().state())
            .isEqualTo(JobState.COMPLETE);
        assertThat(store.jobStore().history("closer", 10))
            .extracting(RunRecord::outcome)
            .containsExactly(RunOutcome.SUCCESS);
        for (int i = 0; i < 20; i++) {
          JobRecord tick = store.jobStore().find("tick-" + i).orElseThrow();
          assertThat(tick.state()).as(tick.key() + " written back").isEqualTo(JobState.SCHEDULED);
        }
      }
      assertThat(log.lines("still unwritten")).isZero();
      assertThat(log.lines("abandoned")).isZero();
      assertThat(log.lines("the close goes on on thread kairos-close-" + id)).isEqualTo(1);
    }
  }
}
