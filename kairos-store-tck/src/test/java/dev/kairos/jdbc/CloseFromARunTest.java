package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.tck.PostgresTestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job that shuts its application down calls {@code close()} from its own run. On a database
 * store, whose write-backs go through the write-back queue, that run is still written back once it
 * ends: after a restart the job is complete, not RUNNING (which made it run again, as a recovery,
 * and so close the application again, at every start).
 */
class CloseFromARunTest {
  private static final Duration GRACE = Duration.ofSeconds(20);

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgres", "postgres-clustered"})
  void closeFromARun_theRunIsWrittenBack_notRunAgainAfterARestart(String server) throws Exception {
    withStores(server, dir, CloseFromARunTest::run);
  }

  /** A test body given where its stores come from. */
  @FunctionalInterface
  interface StoreRun {
    void run(Supplier<JdbcStore> stores) throws Exception;
  }

  /**
   * Runs body with new stores, each keeping completed jobs, on {@code server}: "h2" (a file in
   * dir), "postgres" or "postgres-clustered" (a schema of its own, dropped afterwards).
   */
  static void withStores(String server, Path dir, StoreRun body) throws Exception {
    if (server.equals("h2")) {
      String url = JdbcStore.Builder.h2Url(dir.resolve("kairos"));
      body.run(() -> JdbcStore.builder().url(url).keepCompleted(true).build());
      return;
    }
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      boolean clustered = server.endsWith("clustered");
      body.run(
          () ->
              JdbcStore.builder()
                  .url(db.url())
                  .user(PostgresTestDatabase.USER)
                  .keepCompleted(true)
                  .clustered(clustered)
                  .build());
    }
  }

  private static void run(Supplier<JdbcStore> stores) throws Exception {
    AtomicReference<Scheduler> scheduler = new AtomicReference<>();
    AtomicLong closeTookNanos = new AtomicLong(-1);
    Scheduler s =
        Kairos.builder()
            .store(stores.get())
            .instanceId("closer-" + System.nanoTime())
            .workers(2)
            .gracePeriod(GRACE)
            .handler(
                "closer",
                ctx -> {
                  long t0 = System.nanoTime();
                  scheduler.get().close();
                  closeTookNanos.set(System.nanoTime() - t0);
                })
            .handler("tick", ctx -> {})
            .build();
    scheduler.set(s);
    s.schedule(JobSpec.named("tick").handler("tick").fixedRate(Duration.ofMillis(20)));
    s.schedule(JobSpec.named("closer").handler("closer").after(Duration.ofMillis(300)));
    s.start();
    await().atMost(GRACE.dividedBy(2)).until(() -> closeTookNanos.get() >= 0);
    assertThat(Duration.ofNanos(closeTookNanos.get())).isLessThan(GRACE.dividedBy(2));

    // the store closes once the run has been written back; a new store then sees the run
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions() // an H2 file stays locked until the first store has closed
        .untilAsserted(
            () -> {
              try (JdbcStore store = stores.get()) {
                store.open();
                assertThat(store.jobStore().find("closer").orElseThrow().state())
                    .isEqualTo(JobState.COMPLETE);
                assertThat(store.jobStore().history("closer", 10))
                    .extracting(RunRecord::outcome)
                    .containsExactly(RunOutcome.SUCCESS);
              }
            });
  }
}
