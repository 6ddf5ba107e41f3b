package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.tck.MariaDbTestDatabase;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two transactions that lock two rows in opposite orders deadlock on InnoDB; the database rolls one
 * back, and {@link Database#inTransaction} runs it again, so both complete.
 */
class MariaDbDeadlockTest {
  private static MariaDbTestDatabase db;

  @BeforeAll
  static void createDatabase() {
    db = MariaDbTestDatabase.create();
  }

  @AfterAll
  static void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void inTransaction_deadlockVictim_runAgainAndBothCommit() throws Exception {
    db.assumeReachable();
    deadlockBothCommit(db, db.url());
  }

  /**
   * Runs the deadlock of this class's test on the database at {@code url} (MariaDB Connector/J or
   * MySQL Connector/J): one transaction is rolled back, run again, and both commit.
   */
  static void deadlockBothCommit(dev.kairos.tck.TestDatabase db, String url) throws Exception {
    Database database =
        new Database(
            ConnectionSource.pool(url, MariaDbTestDatabase.USER, "", 2, "deadlock test"),
            "dl_",
            true);
    database.open();
    db.execute("CREATE TABLE dl_rows (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB");
    db.execute("INSERT INTO dl_rows VALUES (1, 0), (2, 0)");
    CyclicBarrier bothHoldTheirFirstRow = new CyclicBarrier(2);
    AtomicInteger runs = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CompletableFuture<?> ab =
          CompletableFuture.runAsync(
              () -> lockBoth(database, 1, 2, bothHoldTheirFirstRow, runs), pool);
      CompletableFuture<?> ba =
          CompletableFuture.runAsync(
              () -> lockBoth(database, 2, 1, bothHoldTheirFirstRow, runs), pool);
      CompletableFuture.allOf(ab, ba).get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
      database.close();
    }

    assertThat(runs.get()).as("transactions run, one of them twice").isEqualTo(3);
    assertThat(db.row("SELECT SUM(n) AS total FROM dl_rows").orElseThrow().get("total"))
        .hasToString("4");
  }

  /**
   * In one transaction: locks {@code first}, waits for the other thread (first run only), then
   * {@code second}.
   */
  private static void lockBoth(
      Database database, int first, int second, CyclicBarrier barrier, AtomicInteger runs) {
    database.inTransaction(
        "locking " + first + " then " + second,
        h -> {
          boolean firstRun = runs.incrementAndGet() <= 2;
          h.execute("UPDATE dl_rows SET n = n + 1 WHERE id = ?", first);
          if (firstRun) {
            try {
              barrier.await(30, TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          }
          h.execute("UPDATE dl_rows SET n = n + 1 WHERE id = ?", second);
          return null;
        });
  }
}
