package dev.kairos.jdbc;

import static dev.kairos.tck.JobStoreContract.fresh;
import static dev.kairos.tck.JobStoreContract.success;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobState;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A start mark written in the application's open transaction (what a {@code pause()} there writes
 * for a run going here, through a store that joins the caller's transactions, as the Spring Boot
 * starter's does) stays in that transaction and out of every other: before, it went through the
 * group commit, where another thread's batch could take it (committing it whatever the application
 * then did, or waiting for the application's row locks while the application waited for that
 * batch), or the application's thread could take other threads' write-backs into its own
 * transaction, which then rolled them back although their threads had been told they committed.
 *
 * <p>Deterministic: all lanes of the group commit are held by write-backs waiting for row locks
 * that a third transaction holds, so the application's mark and another thread's write-back would
 * both queue; the locks are then released and the application rolls back. Whichever thread would
 * have combined the two, one of the assertions failed before.
 */
class CallerTransactionGroupCommitTest {
  private static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");
  private static final int LANES = 4; // GroupCommit.lanesFor a data source of unknown pool size

  @Test
  void postgres_aMarkInTheCallersTransaction_isRolledBackWithIt_andTakesNoOtherWriteBack()
      throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      markInCallerTransactionThenRollBack(
          db,
          "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?");
    }
  }

  @Test
  void mariaDb_aMarkInTheCallersTransaction_isRolledBackWithIt_andTakesNoOtherWriteBack()
      throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      markInCallerTransactionThenRollBack(
          db,
          "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'"
              + " AND trx_query LIKE ?");
    }
  }

  private static void markInCallerTransactionThenRollBack(TestDatabase db, String lockWaiters)
      throws Exception {
    String prefix = JdbcStoreContract.nextPrefix();
    ExecutorService app = Executors.newSingleThreadExecutor(r -> new Thread(r, "application"));
    ExecutorService others = Executors.newCachedThreadPool();
    ExecutorService dOwner = Executors.newSingleThreadExecutor();
    java.util.concurrent.atomic.AtomicBoolean entered =
        new java.util.concurrent.atomic.AtomicBoolean();
    try (JdbcStore plain = db.builder().tablePrefix(prefix).build();
        Connection appConnection = db.connect();
        Connection holder = db.connect();
        Connection watcher = db.connect();
        CallerTransactionSource source = new CallerTransactionSource(db, appConnection);
        JdbcStore joining = source.joiningStore(prefix).build()) {
      JobStore store = plain.jobStore();
      List<JobRecord> blocked = new ArrayList<>();
      for (int i = 0; i < LANES; i++) {
        blocked.add(store.upsert(fresh("b" + i, T0)).record());
      }
      store.upsert(fresh("a", T0));
      JobRecord d = store.upsert(fresh("d", T0)).record();
      joining.open();
      JobStore joined = joining.jobStore();

      // 1. Every lane busy: write-backs of b0..b3 wait for row locks another transaction holds.
      holder.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED); // no gap locks
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        for (JobRecord b : blocked) { // one primary-key lookup each: those rows, and only those
          s.executeQuery(
                  "SELECT * FROM " + prefix + "jobs WHERE job_key = '" + b.key() + "' FOR UPDATE")
              .close();
        }
      }
      List<CompletableFuture<?>> writeBacks = new ArrayList<>();
      for (JobRecord b : blocked) {
        writeBacks.add(CompletableFuture.runAsync(() -> joined.runFinished(success(b)), others));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> count(watcher, lockWaiters, "%" + prefix + "jobs%") >= LANES);

      // 2. The application, in its open transaction, marks a's run (a pause() during it does).
      Thread appThread = app.submit(Thread::currentThread).get();
      CompletableFuture<Void> mark =
          CompletableFuture.runAsync(
              () -> {
                try {
                  appConnection.setAutoCommit(false);
                  source.begin();
                  entered.set(true);
                  joined.runStarted("a", T0, T0.plusMillis(3), "node-1");
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              },
              app);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  mark.isDone() || (entered.get() && appThread.getState() == Thread.State.WAITING));

      // 3. Another thread's write-back of d queues behind the busy lanes.
      Thread[] dThread = new Thread[1];
      CompletableFuture<?> dWriteBack =
          CompletableFuture.runAsync(
              () -> {
                dThread[0] = Thread.currentThread();
                joined.runFinished(success(d));
              },
              dOwner);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> dThread[0] != null && dThread[0].getState() == Thread.State.WAITING);

      // 4. The locks go; everything completes; the application rolls back.
      holder.commit();
      CompletableFuture.allOf(writeBacks.toArray(CompletableFuture[]::new))
          .get(60, TimeUnit.SECONDS);
      mark.get(60, TimeUnit.SECONDS);
      dWriteBack.get(60, TimeUnit.SECONDS);
      app.submit(
              () -> {
                appConnection.rollback();
                source.end();
                return null;
              })
          .get();

      JobRecord a = store.find("a").orElseThrow();
      assertThat(a.state())
          .as("a's mark was rolled back with the application's transaction")
          .isEqualTo(JobState.SCHEDULED);
      assertThat(a.stats().lastStart()).isNull();
      assertThat(store.find("d").orElseThrow().stats().runCount())
          .as("d's write-back, answered as committed, is not in the rolled-back transaction")
          .isEqualTo(1);
      for (int i = 0; i < LANES; i++) {
        assertThat(store.find("b" + i).orElseThrow().stats().runCount()).isEqualTo(1);
      }
    } finally {
      app.shutdownNow();
      others.shutdownNow();
      dOwner.shutdownNow();
    }
  }

  private static long count(Connection c, String sql, String like) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, like);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }
}
