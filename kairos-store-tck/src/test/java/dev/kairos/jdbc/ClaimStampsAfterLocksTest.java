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
 * A batched claim does not wait for a row another transaction holds (an application's transaction
 * that changed the job on another instance and stays open): it locks the rows it can ({@code FOR
 * UPDATE SKIP LOCKED}) before it stamps any, claims those at once, and answers "not claimed" for
 * the held one, whose row (version, change stamp) it leaves untouched. Before, the whole batch
 * waited for that transaction's end. The engine then claims the held job alone, a claim that waits
 * for the lock and wins once the holder ends without a change. Real time, generous bounds.
 */
class ClaimStampsAfterLocksTest {
  /** How long the other transaction holds the row (the lone claim waits that long). */
  private static final Duration HOLD = Duration.ofMillis(1500);

  @ParameterizedTest
  @ValueSource(strings = {"postgres", "mariadb"})
  void batchSkipsAHeldRow_claimsTheOthersAtOnce_loneClaimWaitsForIt(String server)
      throws Exception {
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
      ClusterStore cluster = (ClusterStore) jobs;
      Instant due = Instant.now().minusSeconds(1);
      for (String key : List.of("a-first", "b-held", "c-last")) {
        jobs.upsert(JobRecord.fresh(JobSpec.named(key).handler("h").at(due), due));
      }
      List<JobRecord> expected =
          List.of(
              jobs.find("a-first").orElseThrow(),
              jobs.find("b-held").orElseThrow(),
              jobs.find("c-last").orElseThrow());
      JobRecord held = expected.get(1);
      BigDecimal heldStamp = stamp(db, "b-held");

      CompletableFuture<Optional<ClusterStore.Claimed>> alone;
      try (Connection holder = db.connect()) {
        holder.setAutoCommit(false);
        try (Statement s = holder.createStatement()) {
          s.executeQuery("SELECT job_key FROM kairos_jobs WHERE job_key = 'b-held' FOR UPDATE")
              .close();
          BigDecimal beforeBatch = epochSeconds(s, clock);
          // The batch answers while the row is held: the others claimed, the held one not.
          List<Optional<ClusterStore.Claimed>> won =
              CompletableFuture.supplyAsync(
                      () -> cluster.claimAll(expected, "i1", Duration.ofSeconds(30)))
                  .get(10, TimeUnit.SECONDS);
          assertThat(won.get(0)).as("a-first").isPresent();
          assertThat(won.get(1)).as("b-held, skipped").isEmpty();
          assertThat(won.get(2)).as("c-last").isPresent();
          assertThat(stamp(db, "b-held")).as("the skipped row's stamp").isEqualTo(heldStamp);
          assertThat(stamp(db, "a-first"))
              .as("a-first's stamp")
              .isGreaterThanOrEqualTo(beforeBatch);
          assertThat(stamp(db, "c-last")).as("c-last's stamp").isGreaterThanOrEqualTo(beforeBatch);
          assertThat(jobs.find("b-held").orElseThrow().version())
              .as("the skipped row's version")
              .isEqualTo(held.version());
          // The claim alone waits on the held row (checked below by its stamp).
          alone =
              CompletableFuture.supplyAsync(
                  () -> cluster.claim(held, "i1", Duration.ofSeconds(30)));
          Thread.sleep(HOLD.toMillis());
          assertThat(alone).as("the lone claim waits for the held row").isNotDone();
        }
        holder.commit();
      }
      Optional<ClusterStore.Claimed> claimed = alone.get(30, TimeUnit.SECONDS);
      assertThat(claimed).as("the lone claim, once the holder ended").isPresent();
      assertThat(claimed.get().record().version()).isEqualTo(held.version() + 1);
    }
  }

  /** The change stamp ({@code changed_at}) of {@code key}'s row. */
  private static BigDecimal stamp(TestDatabase db, String key) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT changed_at FROM kairos_jobs WHERE job_key = '" + key + "'")) {
      assertThat(rs.next()).isTrue();
      return rs.getBigDecimal(1);
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
