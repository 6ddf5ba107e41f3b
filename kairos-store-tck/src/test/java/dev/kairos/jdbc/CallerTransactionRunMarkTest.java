package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.CallerTransactions;
import dev.kairos.engine.Kairos;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A redefinition or a pause made in the application's open transaction while a run of the job is
 * going here carries the run's start mark in that same transaction (issue #9, "a recovery flag that
 * is always true"): the moment the application commits, the row says the run is going ({@code
 * RUNNING}, or for a paused job the run's start as its last start with no end after it), so a crash
 * right after the commit re-runs the fire flagged as a recovery. Before, the mark was written by
 * the heap's re-read after the transaction's end, and a crash between the commit and that re-read
 * left the row without it. A rollback takes the mark back with the change. The re-read here is held
 * until the test runs it: what the row holds in between is what a crash at that moment would find.
 */
class CallerTransactionRunMarkTest {

  @Test
  void postgres_redefinitionDuringARun_committedRowIsMarked() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      redefinedDuringRun(db, true, Duration.ZERO);
    }
  }

  @Test
  void postgres_redefinitionDuringARun_rolledBack_leavesTheRowAsBefore() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      redefinedDuringRun(db, false, Duration.ZERO);
    }
  }

  /**
   * With a start-mark delay the store defers marks to a flusher of its own; one made in the
   * application's transaction is written at once, in it (the flusher would wait for its row lock).
   */
  @Test
  void postgres_redefinitionDuringARun_withStartMarkDelay_committedRowIsMarked() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      redefinedDuringRun(db, true, Duration.ofSeconds(30));
    }
  }

  @Test
  void postgres_pauseDuringARun_committedRowHoldsTheRunsStart() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      pausedDuringRun(db);
    }
  }

  @Test
  void mariaDb_redefinitionDuringARun_committedRowIsMarked() throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      redefinedDuringRun(db, true, Duration.ZERO);
    }
  }

  @Test
  void mariaDb_pauseDuringARun_committedRowHoldsTheRunsStart() throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      pausedDuringRun(db);
    }
  }

  /**
   * The mark written in the application's transaction locks the marked row only: another job's row
   * can be written meanwhile (at MariaDB's default REPEATABLE READ a statement that scanned the
   * table would keep every row it read locked until the application's commit, and every other job's
   * write-backs and marks would wait for it).
   */
  @Test
  void mariaDb_redefinitionDuringARun_leavesOtherRowsUnlocked() throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      otherRowFreeDuringTransaction(db, "SET SESSION innodb_lock_wait_timeout = 1");
    }
  }

  @Test
  void postgres_redefinitionDuringARun_leavesOtherRowsUnlocked() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      otherRowFreeDuringTransaction(db, "SET lock_timeout = '1s'");
    }
  }

  private static void otherRowFreeDuringTransaction(TestDatabase db, String shortLockWait)
      throws Exception {
    during(
        db,
        Duration.ZERO,
        (h) -> {
          h.scheduler.schedule(
              JobSpec.named("other").handler("slow").at(Instant.now().plusSeconds(3600)));
          h.inTransaction(
              () -> h.scheduler.schedule(spec().fixedRate(Duration.ofHours(2))),
              () -> {
                try (Connection c = db.connect();
                    java.sql.Statement st = c.createStatement()) {
                  st.execute(shortLockWait);
                  assertThat(
                          st.executeUpdate(
                              "UPDATE "
                                  + h.prefix
                                  + "jobs SET version = version WHERE job_key = 'other'"))
                      .as("another job's row written while the application's transaction is open")
                      .isOne();
                } catch (java.sql.SQLException e) {
                  throw new AssertionError("another job's row is locked: " + e, e);
                }
              },
              true);
          assertThat(h.row().state()).isEqualTo("RUNNING");
        });
  }

  /** The job's row as another connection reads it: state, version, last start and end. */
  private record Row(String state, long version, BigDecimal lastStart, BigDecimal lastEnd) {}

  private static void redefinedDuringRun(TestDatabase db, boolean commit, Duration markDelay)
      throws Exception {
    during(
        db,
        markDelay,
        (h) -> {
          Row before = h.row();
          assertThat(before.state())
              .as("the run's own mark (none yet with a delay)")
              .isEqualTo(markDelay.isZero() ? "RUNNING" : "SCHEDULED");
          h.inTransaction(
              () -> h.scheduler.schedule(spec().fixedRate(Duration.ofHours(2))), commit);
          Row after = h.row();
          if (commit) {
            assertThat(after.state())
                .as("committed with the redefinition, before the transaction's end was handled")
                .isEqualTo("RUNNING");
            assertThat(after.version()).isGreaterThan(before.version());
          } else {
            assertThat(after).as("rolled back with the redefinition").isEqualTo(before);
          }
        });
  }

  private static void pausedDuringRun(TestDatabase db) throws Exception {
    during(
        db,
        Duration.ZERO,
        (h) -> {
          h.inTransaction(() -> h.scheduler.pause("j"), true);
          Row after = h.row();
          assertThat(after.state()).isEqualTo("PAUSED");
          assertThat(after.lastStart())
              .as("the going run's start, committed with the pause")
              .isNotNull();
          assertThat(after.lastEnd()).as("no end after that start").isNull();
        });
  }

  private static JobSpec spec() {
    return JobSpec.named("j").handler("slow");
  }

  /**
   * Runs {@code check} while the first run of job 'j' is going on a scheduler whose store joins the
   * application's transactions, with start marks deferred by {@code markDelay}; then lets the run
   * end and the held re-reads go, and waits for the run's write-back.
   */
  private static void during(TestDatabase db, Duration markDelay, Consumer<Harness> check)
      throws Exception {
    String prefix = JdbcStoreContract.nextPrefix();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (Connection app = db.connect();
        CallerTransactionSource source = new CallerTransactionSource(db, app);
        JdbcStore store = source.joiningStore(prefix).startMarkDelay(markDelay).build()) {
      Harness h = new Harness(db, prefix, app, source);
      h.scheduler =
          Kairos.builder()
              .store(store)
              .callerTransactions(h)
              .handler(
                  "slow",
                  ctx -> {
                    running.countDown();
                    release.await(30, TimeUnit.SECONDS);
                  })
              .build();
      try {
        h.scheduler.start();
        // a start already past when schedule() returns would mean the next slot: 1 s ahead
        h.scheduler.schedule(
            spec().fixedRate(Duration.ofHours(1)).startAt(Instant.now().plusSeconds(1)));
        assertThat(running.await(30, TimeUnit.SECONDS)).as("the run began").isTrue();
        if (markDelay.isZero()) {
          await().atMost(Duration.ofSeconds(10)).until(() -> h.row().state().equals("RUNNING"));
        }
        check.accept(h);
      } finally {
        release.countDown();
        h.rereads.forEach(Runnable::run);
        h.rereads.clear();
        try {
          await() // the run's write-back lands after all
              .atMost(Duration.ofSeconds(30))
              .until(() -> h.row().lastEnd() != null && !h.row().state().equals("RUNNING"));
        } finally {
          h.scheduler.close();
        }
      }
    }
  }

  /** The application's side: its transaction, and the re-reads held until the test runs them. */
  private static final class Harness implements CallerTransactions {
    final TestDatabase db;
    final String prefix;
    final Connection app;
    final CallerTransactionSource source;
    final List<Runnable> rereads = new CopyOnWriteArrayList<>();
    Scheduler scheduler;

    Harness(TestDatabase db, String prefix, Connection app, CallerTransactionSource source) {
      this.db = db;
      this.prefix = prefix;
      this.app = app;
      this.source = source;
    }

    @Override
    public boolean afterCompletion(Runnable reread) {
      if (!source.inTransaction()) {
        return false;
      }
      rereads.add(reread); // run by the test: a crash after the commit never runs it
      return true;
    }

    @Override
    public boolean mayJoin() {
      return source.inTransaction();
    }

    /** Makes {@code change} in a transaction of the application's, then commits or rolls back. */
    void inTransaction(Runnable change, boolean commit) {
      inTransaction(change, () -> {}, commit);
    }

    /** The same, running {@code whileOpen} after the change and before the commit or rollback. */
    void inTransaction(Runnable change, Runnable whileOpen, boolean commit) {
      try {
        app.setAutoCommit(false);
        source.begin();
        try {
          change.run();
        } finally {
          source.end();
        }
        whileOpen.run();
        if (commit) {
          app.commit();
        } else {
          app.rollback();
        }
        app.setAutoCommit(true);
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    Row row() {
      try (Connection c = db.connect();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT state, version, last_start, last_end FROM "
                      + prefix
                      + "jobs WHERE job_key = 'j'")) {
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).as("job 'j' stored").isTrue();
          return new Row(rs.getString(1), rs.getLong(2), rs.getBigDecimal(3), rs.getBigDecimal(4));
        }
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
