package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.jdbc.internal.Dialect;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRecord;
import dev.kairos.tck.ClusterStoreContract;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.JobStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The cluster contract on PostgreSQL, in a schema of this class's own, plus LISTEN/NOTIFY. */
class PostgresClusterStoreTest extends ClusterStoreContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  /** The table prefix of the current test's stores. */
  private String prefix;

  @Override
  protected Supplier<ClusterStore> sharedTables() {
    db.assumeReachable();
    String prefix = JdbcStoreContract.nextPrefix();
    this.prefix = prefix;
    return () ->
        db.builder().tablePrefix(prefix).clustered(true).changeSettle(SETTLE).build().jobStore();
  }

  /** A write through one instance wakes another's wait at once (well within its 10 s maximum). */
  @Test
  void awaitChange_writeThroughAnotherInstance_wakesTheWaiterAtOnce() throws Exception {
    b.awaitChange(Duration.ofMillis(10)); // the first call opens the listener
    CompletableFuture<Long> woken =
        CompletableFuture.supplyAsync(
            () -> {
              long start = System.nanoTime();
              try {
                while (!b.awaitChange(Duration.ofSeconds(10))) {
                  // a timeout without notification: wait again
                }
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              return System.nanoTime() - start;
            });
    Thread.sleep(200); // let the waiter block first
    a.upsert(fresh("x", T0));

    long waited = woken.get(10, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(waited)).isLessThan(Duration.ofSeconds(2));
  }

  /**
   * A change whose stamp was taken before a read but committed after it, below stamps that read
   * returned, is returned by the next read from the returned cursor: the reader skips only the
   * stamps it returned, not everything below the newest. (A settle window of 30 s keeps the cursor
   * from passing the late stamp however slow this machine is.)
   */
  @Test
  void changesSince_lateCommitBelowReturnedStamps_returnedByTheNextRead() throws Exception {
    a.upsert(fresh("late", T0));
    try (JdbcStore store =
            db.builder()
                .tablePrefix(prefix)
                .clustered(true)
                .changeSettle(Duration.ofSeconds(30))
                .build();
        Connection open = db.connect()) {
      ClusterStore reader = store.jobStore();
      ClusterStore.Changes before = reader.changesSince(reader.changeCursor(), 100);
      assertThat(before.changed()).extracting(JobRecord::key).containsExactly("late");
      open.setAutoCommit(false);
      try (Statement s = open.createStatement()) {
        s.executeUpdate(
            "UPDATE "
                + prefix
                + "jobs SET change_seq = "
                + Dialect.POSTGRESQL.nextChange(prefix)
                + ", changed_at = "
                + Dialect.POSTGRESQL.now()
                + " WHERE job_key = 'late'");
      }
      a.upsert(fresh("after", T0)); // a higher stamp, committed first

      ClusterStore.Changes first = reader.changesSince(before.cursor(), 100);
      assertThat(first.changed()).extracting(JobRecord::key).containsExactly("after");
      open.commit();

      ClusterStore.Changes next = reader.changesSince(first.cursor(), 100);
      assertThat(next.changed()).extracting(JobRecord::key).containsExactly("late");
    }
  }

  /**
   * Rows whose change time lies a day ahead, or beyond any instant (edited by hand: the store
   * stamps the database clock), are returned and hold the cursor below their stamps, but neither
   * fails the read nor keeps a later change from being returned at once; once the store writes
   * those jobs again, their rows are stamped anew and the cursor moves past them.
   */
  @Test
  void changesSince_rowsStampedAhead_holdTheCursorButNotLaterChanges() throws Exception {
    long start = b.changeCursor();
    a.upsert(fresh("ahead", T0));
    a.upsert(fresh("beyond", T0));
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      String stamp =
          "UPDATE " + prefix + "jobs SET change_seq = " + Dialect.POSTGRESQL.nextChange(prefix);
      s.executeUpdate(
          stamp
              + ", changed_at = "
              + Dialect.POSTGRESQL.now()
              + " + 86400 WHERE job_key = 'ahead'");
      s.executeUpdate(stamp + ", changed_at = 1e18 WHERE job_key = 'beyond'");
    }
    a.upsert(fresh("later", T0));
    awaitSettled();

    ClusterStore.Changes held = b.changesSince(start, 100);
    assertThat(held.changed())
        .extracting(JobRecord::key)
        .containsExactly("ahead", "beyond", "later");
    assertThat(held.cursor()).as("cursor held below the stamps ahead").isEqualTo(start);

    a.upsert(JobRecord.fresh(JobStoreContract.spec("ahead").data("again"), T0));
    a.upsert(JobRecord.fresh(JobStoreContract.spec("beyond").data("again"), T0));
    awaitSettled();
    ClusterStore.Changes moved = b.changesSince(held.cursor(), 100);
    assertThat(moved.changed()).extracting(JobRecord::key).containsExactly("ahead", "beyond");
    assertThat(moved.cursor()).as("cursor past every change").isGreaterThan(start);
    assertThat(b.changesSince(moved.cursor(), 100).changed()).isEmpty();
  }
}
