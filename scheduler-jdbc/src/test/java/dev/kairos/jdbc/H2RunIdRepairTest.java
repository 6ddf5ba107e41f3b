package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.spi.JobRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a SIGKILL, H2 can reopen its file with the run history's id sequence behind ids its rows
 * already use (H2KillProbe shows it; Dialect.repairRunIdsAfterCrash says how). The state is made
 * here by hand, a row stored with the id the sequence gives next, and the store must still write
 * back: open() moves the sequence past the highest id.
 */
class H2RunIdRepairTest {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");

  @TempDir Path dir;

  @Test
  void aSequenceBehindItsRows_isMovedPastThem_atOpen_andWriteBacksSucceed() throws SQLException {
    JobRecord job;
    try (JdbcStore store = JdbcStore.h2(dir)) {
      store.open();
      job =
          store
              .jobStore()
              .upsert(
                  JobRecord.fresh(
                      JobSpec.named("nightly").handler("h").fixedRate(Duration.ofMinutes(1)), T0))
              .record();
      job = store.jobStore().runFinished(H2FileSizeTest.success(job)).orElseThrow();
    }
    long taken;
    try (Connection c =
            DriverManager.getConnection(JdbcStore.Builder.h2Url(dir.resolve("kairos")));
        Statement s = c.createStatement()) {
      taken = identityBase(s);
      s.executeUpdate(
          "INSERT INTO kairos_runs(id, job_key, outcome, attempt) VALUES("
              + taken
              + ", 'nightly', 'SUCCESS', 1)");
      assertThat(identityBase(s))
          .as("an explicit id leaves the sequence where it was")
          .isEqualTo(taken);
    }

    try (JdbcStore store = JdbcStore.h2(dir)) {
      store.open();
      job = store.jobStore().runFinished(H2FileSizeTest.success(job)).orElseThrow();
      assertThat(job.runCount()).isEqualTo(2);
    }
    try (Connection c =
            DriverManager.getConnection(JdbcStore.Builder.h2Url(dir.resolve("kairos")));
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT COUNT(*), MAX(id) FROM kairos_runs")) {
      r.next();
      assertThat(r.getLong(1)).as("history rows").isEqualTo(3);
      assertThat(r.getLong(2)).as("the new run's id").isGreaterThan(taken);
    }
  }

  @Test
  void aSequenceAheadOfItsRows_isLeftAsItIs() throws SQLException {
    try (JdbcStore store = JdbcStore.h2(dir)) {
      store.open();
    }
    long before;
    try (Connection c =
            DriverManager.getConnection(JdbcStore.Builder.h2Url(dir.resolve("kairos")));
        Statement s = c.createStatement()) {
      before = identityBase(s);
    }
    try (JdbcStore store = JdbcStore.h2(dir)) {
      store.open();
    }
    try (Connection c =
            DriverManager.getConnection(JdbcStore.Builder.h2Url(dir.resolve("kairos")));
        Statement s = c.createStatement()) {
      assertThat(identityBase(s)).isEqualTo(before);
    }
  }

  private static long identityBase(Statement s) throws SQLException {
    try (ResultSet r =
        s.executeQuery(
            "SELECT IDENTITY_BASE FROM INFORMATION_SCHEMA.COLUMNS"
                + " WHERE TABLE_NAME = 'KAIROS_RUNS' AND COLUMN_NAME = 'ID'")) {
      r.next();
      return r.getLong(1);
    }
  }
}
