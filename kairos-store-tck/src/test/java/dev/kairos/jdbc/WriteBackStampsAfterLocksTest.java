package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.JobStoreContract;
import dev.kairos.tck.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Single write-backs that the store's group commit puts in one transaction take their change stamps
 * only once every row of that transaction is locked: while another transaction holds one job's row,
 * the write-back of an earlier job (in key order) that shares the batch is not stamped before the
 * lock is released. Before, each write-back of a batch locked and stamped its own row in turn, so
 * the earlier row's stamp was committed only after the wait (a wait longer than the change feed's
 * settle time lost that change from the feed). Real time, generous bounds.
 *
 * <p>The batch is made deterministic with a pool of two connections (one lane of the group commit):
 * a first write-back waits on a row held by the test, the two others queue behind it, and when the
 * first row is released one of them takes both into one transaction.
 */
class WriteBackStampsAfterLocksTest {
  /** How long the held rows stay locked (the write-backs wait that long). */
  private static final long HOLD_MS = 1500;

  @ParameterizedTest
  @ValueSource(strings = {"postgres", "mariadb"})
  void writeBackOfAnEarlierRow_stampedAfterTheRelease(String server) throws Exception {
    ClaimStampsAfterLocksTest.onServer(server, WriteBackStampsAfterLocksTest::check);
  }

  private static void check(TestDatabase db, String clock) throws Exception {
    try (JdbcStore store = db.builder().poolSize(2).build()) {
      store.open();
      JobStore jobs = store.jobStore();
      Instant due = Instant.now().minusSeconds(1);
      for (String key : new String[] {"a-first", "b-held", "z-lane"}) {
        jobs.upsert(JobRecord.fresh(JobSpec.named(key).handler("h").at(due), due));
      }
      JobRecord a = jobs.find("a-first").orElseThrow();
      JobRecord b = jobs.find("b-held").orElseThrow();
      JobRecord z = jobs.find("z-lane").orElseThrow();

      BigDecimal released;
      CompletableFuture<Optional<JobRecord>> first;
      CompletableFuture<Optional<JobRecord>> writeA;
      CompletableFuture<Optional<JobRecord>> writeB;
      try (Connection laneHolder = db.connect();
          Connection rowHolder = db.connect()) {
        laneHolder.setAutoCommit(false);
        rowHolder.setAutoCommit(false);
        try (Statement lane = laneHolder.createStatement();
            Statement row = rowHolder.createStatement()) {
          lock(lane, "z-lane");
          lock(row, "b-held");
          first =
              CompletableFuture.supplyAsync(() -> jobs.runFinished(JobStoreContract.success(z)));
          Thread.sleep(300);
          assertThat(first).as("the first write-back waits for its row").isNotDone();
          writeA = new CompletableFuture<>();
          writeB = new CompletableFuture<>();
          Thread threadA = writer(jobs, a, writeA, "write-a");
          Thread threadB = writer(jobs, b, writeB, "write-b");
          awaitQueued(threadA); // both queue behind the busy lane
          awaitQueued(threadB);
          laneHolder.commit(); // the lane frees: one transaction takes a-first and b-held
          first.get(30, TimeUnit.SECONDS);
          Thread.sleep(HOLD_MS);
          assertThat(writeA).as("a-first shares the transaction waiting for b-held").isNotDone();
          released = ClaimStampsAfterLocksTest.epochSeconds(row, clock);
        }
        rowHolder.commit();
      }
      assertThat(writeA.get(30, TimeUnit.SECONDS)).isPresent();
      assertThat(writeB.get(30, TimeUnit.SECONDS)).isPresent();

      try (Connection c = db.connect();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT changed_at FROM kairos_jobs WHERE job_key IN ('a-first', 'b-held')")) {
        int rows = 0;
        while (rs.next()) {
          rows++;
          assertThat(rs.getBigDecimal(1))
              .as("a write-back's stamp against the release of the held row")
              .isGreaterThanOrEqualTo(released);
        }
        assertThat(rows).isEqualTo(2);
      }
    }
  }

  /** Starts a thread that writes {@code r}'s run back and completes {@code out} with the answer. */
  private static Thread writer(
      JobStore jobs, JobRecord r, CompletableFuture<Optional<JobRecord>> out, String name) {
    Thread t =
        new Thread(
            () -> {
              try {
                out.complete(jobs.runFinished(JobStoreContract.success(r)));
              } catch (RuntimeException e) {
                out.completeExceptionally(e);
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * Waits until the writer is parked in the group commit's queue behind the busy lane (its only
   * lane), rather than sleeping and hoping it got there.
   */
  private static void awaitQueued(Thread t) {
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(
            () ->
                t.getState() == Thread.State.WAITING
                    && java.util.Arrays.stream(t.getStackTrace())
                        .anyMatch(f -> f.getMethodName().equals("awaitUninterruptibly")));
  }

  private static void lock(Statement s, String key) throws Exception {
    s.executeQuery("SELECT job_key FROM kairos_jobs WHERE job_key = '" + key + "' FOR UPDATE")
        .close();
  }
}
