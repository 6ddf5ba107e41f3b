package dev.kairos.jdbc.internal;

import static dev.kairos.jdbc.internal.Values.constant;
import static dev.kairos.jdbc.internal.Values.decimal;
import static dev.kairos.jdbc.internal.Values.instant;

import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.RunResult;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of the {@code <prefix>runs} history table: one row per run, newest has the highest id,
 * read through the (job_key, id) index. Since schema version 3 a row also says whether the run was
 * a recovery and how many missed fires it stood for; since version 14, whether it was a backfill
 * run. Every method runs inside the caller's transaction.
 */
public final class RunTable {
  private final String insert;
  private final String history;
  private final String trimToNewest;
  private final String trimOlderThan;
  private final String deleteAll;
  private final PositionalBatch.Sql insertRows;

  /** The statements for the tables with this (validated) prefix. */
  public RunTable(String prefix) {
    String table = prefix + "runs";
    insert =
        "INSERT INTO "
            + table
            + " (job_key, scheduled_fire_time, run_start, run_end, outcome, error, attempt,"
            + " instance, recovery, missed_fires, backfill) VALUES (:key, :scheduled, :start,"
            + " :end, :outcome, :error, :attempt, :instance, :recovery, :missed, :backfill)";
    history = "SELECT * FROM " + table + " WHERE job_key = :key ORDER BY id DESC LIMIT :limit";
    // The subquery reads a derived table, not the table itself: MySQL refuses a DELETE whose
    // subquery reads its target (error 1093) but materializes a derived table with LIMIT.
    trimToNewest =
        "DELETE FROM "
            + table
            + " WHERE job_key = :key AND id <= (SELECT id FROM (SELECT id FROM "
            + table
            + " WHERE job_key = :key ORDER BY id DESC LIMIT 1 OFFSET :keep) AS cut)";
    trimOlderThan = "DELETE FROM " + table + " WHERE job_key = :key AND run_end < :cutoff";
    deleteAll = "DELETE FROM " + table + " WHERE job_key = :key";
    insertRows = PositionalBatch.Sql.of(insert);
  }

  /**
   * Appends runs, in one batched statement, in the order given, on a database of {@code dialect}.
   */
  public void insertAll(Handle h, Dialect dialect, List<RunResult> runs) throws SQLException {
    if (runs.isEmpty()) {
      return;
    }
    try (var batch = insertRows.prepare(h, dialect)) {
      for (RunResult x : runs) {
        bind(batch, x.run());
        batch.add();
      }
      batch.execute();
    }
  }

  /** Appends one history entry as it is: a backfill run's, or one for skipped fires. */
  public void insert(Handle h, RunRecord x) throws SQLException {
    var u = h.createUpdate(insert);
    bind(Columns.of(u), x);
    u.execute();
  }

  private static void bind(Columns s, RunRecord x) throws SQLException {
    s.text("key", x.key())
        .number("scheduled", decimal(x.scheduledFireTime()))
        .number("start", decimal(x.start()))
        .number("end", decimal(x.end()))
        .text("outcome", x.outcome().name())
        .text("error", JobRules.storableError(x.error()))
        .integer("attempt", x.attempt())
        .text("instance", x.instance())
        .bool("recovery", x.recovery())
        .integer("missed", x.missedFires())
        .bool("backfill", x.backfill());
  }

  /**
   * The newest {@code limit} runs of the job, newest first. A row that breaks {@link
   * JobRules#checkRun} (edited by hand, or written by a newer Kairos) fails the read with an {@link
   * IllegalArgumentException} naming the job and the problem.
   */
  public List<RunRecord> newest(Handle h, String key, int limit) {
    return h.createQuery(history)
        .bind("key", key)
        .bind("limit", limit)
        .map((rs, ctx) -> read(rs, key))
        .list();
  }

  private static RunRecord read(ResultSet rs, String key) throws SQLException {
    RunRecord r =
        new RunRecord(
            key,
            instant(rs, "scheduled_fire_time"),
            instant(rs, "run_start"),
            instant(rs, "run_end"),
            constant(rs, "outcome", RunOutcome.class),
            rs.getString("error"),
            rs.getInt("attempt"),
            rs.getString("instance"),
            rs.getBoolean("recovery"),
            rs.getInt("missed_fires"),
            rs.getBoolean("backfill"));
    JobRules.checkRun(r);
    return r;
  }

  /** Deletes all but the newest {@code keep} runs of the job. */
  public void keepNewest(Handle h, String key, int keep) {
    h.createUpdate(trimToNewest).bind("key", key).bind("keep", keep).execute();
  }

  /** Deletes the job's runs that ended before {@code cutoff}. */
  public void deleteEndedBefore(Handle h, String key, Instant cutoff) {
    h.createUpdate(trimOlderThan).bind("key", key).bind("cutoff", decimal(cutoff)).execute();
  }

  /** Deletes the job's history. */
  public void deleteAll(Handle h, String key) {
    h.createUpdate(deleteAll).bind("key", key).execute();
  }

  /** {@link #deleteAll(Handle, String)} for several jobs, in one batch. */
  public void deleteAll(Handle h, List<String> keys) {
    var batch = h.prepareBatch(deleteAll);
    for (String key : keys) {
      batch.bind("key", key).add();
    }
    batch.execute();
  }
}
