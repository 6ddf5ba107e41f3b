package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bulk upserts on PostgreSQL look existing rows up through the primary key, however the server has
 * cached the look-up's plan: 40 batches of 1,000 new jobs into a table never analyzed must not read
 * the table sequentially once per batch (a cached generic plan did: each batch then scanned every
 * row against 1,000 parameters, and 100,000 jobs took 100 s instead of 8).
 */
class PostgresBulkLookupPlanTest {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Test
  void bulkUpsertLooksUpByIndexOnAGrowingTable() throws Exception {
    db.assumeReachable();
    int batches = 40;
    int perBatch = 1000;
    try (JdbcStore store = db.builder().tablePrefix("plan_").build()) {
      store.open();
      JobStore jobs = store.jobStore();
      Instant due = Instant.parse("2030-01-01T00:00:00Z");
      // One key stored before and in every batch: a batch of new keys only is inserted without a
      // look-up, and this test is about the look-up.
      JobRecord anchor = JobRecord.fresh(JobSpec.named("anchor").handler("h").at(due), due);
      jobs.upsert(anchor);
      for (int b = 0; b < batches; b++) {
        List<JobRecord> batch = new ArrayList<>(perBatch);
        batch.add(anchor);
        for (int i = 0; i < perBatch - 1; i++) {
          JobSpec spec = JobSpec.named("job-" + b + "-" + i).handler("h").at(due);
          batch.add(JobRecord.fresh(spec, due));
        }
        jobs.upsertAll(batch);
      }
    }
    long inserted = batches * (perBatch - 1L) + 1;
    // The server's statistics arrive within a second or so of each transaction's end.
    await().atMost(Duration.ofSeconds(20)).until(() -> stats()[0] >= inserted);
    long[] s = stats();
    // Without the index, the look-ups alone read about batches² × perBatch / 2 = 800,000 rows.
    assertThat(s[1]).as("rows read by sequential scans of plan_jobs").isLessThan(inserted);
  }

  /** {inserted rows, rows read by sequential scans} of the jobs table. */
  private static long[] stats() throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement p =
            c.prepareStatement(
                "SELECT n_tup_ins, seq_tup_read FROM pg_stat_user_tables"
                    + " WHERE schemaname = ? AND relname = 'plan_jobs'")) {
      p.setString(1, db.schema());
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[] {0, 0};
      }
    }
  }
}
