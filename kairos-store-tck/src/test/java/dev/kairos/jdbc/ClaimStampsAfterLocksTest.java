package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A batched claim takes its change stamps only once it holds every row: while another transaction
 * holds the lock of one job's row, a claim of that job and an earlier one (in key order) waits
 * without stamping either, so both rows' stamps fall after the lock is released. Before, the
 * earlier row was stamped first and its stamp committed only after the wait; a wait longer than the
 * change feed's settle time lost that change from the feed. Real time, generous bounds.
 */
class ClaimStampsAfterLocksTest {
  /** How long the other transaction holds the row (the claim waits that long). */
  private static final Duration HOLD = Duration.ofMillis(1500);

  @ParameterizedTest
  @ValueSource(strings = {"postgres", "mariadb"})
  void claimOfAnEarlierRow_stampedAfterTheRelease(String server) throws Exception {
    onServer(server, ClaimStampsAfterLocksTest::check);
  }

  /** A check on one server, given its database's clock as SQL. */
  @FunctionalInterface
  interface Check {
    void run(TestDatabase db, String clock) throws Exception;
  }

  /** Runs {@code check} on a fresh database of {@code server} (skipped where none is reachable). */
  static void onServer(String server, Check check) throws Exception {
    if (server.equals("postgres")) {
      try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
        db.assumeReachable();
        check.run(db, "clock_timestamp()");
      }
    } else {
      try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
        db.assumeReachable();
        check.run(db, "UTC_TIMESTAMP(6)");
      }
    }
  }

  private static void check(TestDatabase db, String clock) throws Exception {
    try (JdbcStore store = db.builder().clustered(true).build()) {
      store.open();
      JobStore jobs = store.jobStore();
      Instant due = Instant.now().minusSeconds(1);
      for (String key : List.of("a-first", "b-held")) {
        jobs.upsert(JobRecord.fresh(JobSpec.named(key).handler("h").at(due), due));
      }
      List<JobRecord> expected =
          List.of(jobs.find("a-first").orElseThrow(), jobs.find("b-held").orElseThrow());

      BigDecimal released;
      CompletableFuture<List<Optional<ClusterStore.Claimed>>> claim;
      try (Connection holder = db.connect()) {
        holder.setAutoCommit(false);
        try (Statement s = holder.createStatement()) {
          s.executeQuery("SELECT job_key FROM kairos_jobs WHERE job_key = 'b-held' FOR UPDATE")
              .close();
          claim =
              CompletableFuture.supplyAsync(
                  () -> ((ClusterStore) jobs).claimAll(expected, "i1", Duration.ofSeconds(30)));
          // The claim must be waiting on the held row, not merely not yet started: the hold is
          // long against a claim's few milliseconds, and checked below by the claim's own stamps.
          Thread.sleep(HOLD.toMillis());
          assertThat(claim).as("the claim waits for the held row").isNotDone();
          released = epochSeconds(s, clock);
        }
        holder.commit();
      }
      List<Optional<ClusterStore.Claimed>> won = claim.get(30, TimeUnit.SECONDS);
      assertThat(won).allMatch(Optional::isPresent);

      try (Connection c = db.connect();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery("SELECT job_key, changed_at FROM kairos_jobs ORDER BY job_key")) {
        int rows = 0;
        while (rs.next()) {
          rows++;
          assertThat(rs.getBigDecimal(2))
              .as("stamp of %s against the release of the held row", rs.getString(1))
              .isGreaterThanOrEqualTo(released);
        }
        assertThat(rows).isEqualTo(2);
      }
    }
  }

  /** The database clock now, as epoch seconds (the unit of {@code changed_at}). */
  static BigDecimal epochSeconds(Statement s, String clock) throws Exception {
    String sql =
        clock.startsWith("clock")
            ? "SELECT CAST(EXTRACT(EPOCH FROM " + clock + ") AS NUMERIC(28,9))"
            : "SELECT CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', "
                + clock
                + ") * 0.000001 AS DECIMAL(28,9))";
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getBigDecimal(1);
    }
  }
}
