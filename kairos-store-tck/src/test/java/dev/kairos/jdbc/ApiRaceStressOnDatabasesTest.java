package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.engine.internal.ApiRaceStress;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.PostgresTestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ApiRaceStress} on H2 and PostgreSQL (issue #10, findings 1 and 2): eight threads call the
 * API on 20 jobs firing every 20 ms; no fire runs twice and nothing runs after pause returned.
 */
class ApiRaceStressOnDatabasesTest {
  @TempDir Path dir;

  @Test
  void h2() throws Exception {
    check(JdbcStore.h2(dir).jobStore());
  }

  @Test
  void postgres() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      check(db.builder().poolSize(8).build().jobStore());
    }
  }

  /**
   * The same while the store's connections are cut every 250 ms (as a database restart or a network
   * fault would end them): calls fail with their outcome unknown, yet no fire runs twice, nothing
   * runs after a pause that returned, and a job paused stays paused in the store.
   */
  @Test
  void postgres_connectionsCutWhileCallsRace() throws Exception {
    withConnectionsCut(false);
  }

  /** The same in cluster mode (one instance: claims, the change feed and its listener cut too). */
  @Test
  void postgres_clustered_connectionsCutWhileCallsRace() throws Exception {
    withConnectionsCut(true);
  }

  private static void withConnectionsCut(boolean clustered) throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      String app = "kairos-race-cut";
      JobStore store =
          JdbcStore.builder()
              .url(db.url() + "&ApplicationName=" + app)
              .user(PostgresTestDatabase.USER)
              .password(PostgresTestDatabase.PASSWORD)
              .poolSize(8)
              .clustered(clustered)
              .build()
              .jobStore();
      store.open(); // the tables made before the cuts begin (a cut migration is MigrationCutTest's)
      AtomicInteger cut = new AtomicInteger();
      AtomicBoolean done = new AtomicBoolean();
      Thread cutter =
          new Thread(
              () -> {
                // Cuts begin once the scheduler has had time to start: a start cut every 250 ms
                // on a loaded machine could use up its whole startup timeout retrying.
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2));
                while (!done.get()) {
                  cut.addAndGet(db.terminateConnections(app));
                  LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
                }
              },
              "connection-cutter");
      cutter.start();
      try {
        check(store);
      } finally {
        done.set(true);
        cutter.join();
      }
      assertThat(cut.get()).as("connections cut").isPositive();
    }
  }

  /**
   * In cluster mode with every call in a transaction of the caller's (as the engine sees one; the
   * store's writes commit at once here): keys held meanwhile stay out of claim batches, their due
   * fires are set aside and come back when the hold ends, and every job fires again afterwards.
   */
  @Test
  void postgres_clustered_callsInCallerTransactions() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      long seed = System.nanoTime();
      ApiRaceStress.Report r =
          ApiRaceStress.run(
              db.builder().poolSize(8).clustered(true).build().jobStore(),
              20,
              8,
              Duration.ofSeconds(6),
              seed,
              true,
              "012345");

      ApiRaceStress.assertCleanInTransactions(r, seed, 100);
    }
  }

  private static ApiRaceStress.Report check(JobStore store) throws Exception {
    long seed = System.nanoTime();
    ApiRaceStress.Report r = ApiRaceStress.run(store, 20, 8, Duration.ofSeconds(6), seed);

    assertThat(r.runs()).as("runs (seed %d)", seed).isGreaterThan(100);
    ApiRaceStress.assertClean(r, seed);
    return r;
  }
}
