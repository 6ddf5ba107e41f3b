package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.StoreException;
import dev.kairos.spi.JobRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a SIGKILL, H2 can reopen its file with a sequence behind values its rows already use (the
 * run history's ids, the change feed's change_seq; H2KillProbe shows it, Dialect.
 * repairSequencesAfterCrash says how). The state is made here by hand, and the store must go on
 * writing: open() moves the sequences past the highest value, so does a write that failed on a
 * duplicate key (for the retry), and so does a clustered store's heartbeat (an H2 server restarted
 * under live instances).
 */
class H2SequenceRepairTest {
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

  @Test
  void aChangeSequenceBehindItsStamps_isMovedPastThem_atOpen() throws SQLException {
    try (JdbcStore store = JdbcStore.h2(dir)) {
      store.open();
      for (String key : List.of("a", "b", "c")) {
        store.jobStore().upsert(JobRecord.fresh(spec(key), T0));
      }
      store.jobStore().delete("c"); // a tombstone holds the highest stamp
    }
    long highest;
    try (Connection c = connection();
        Statement s = c.createStatement()) {
      highest = highestStamp(s);
      s.execute("ALTER SEQUENCE kairos_change_seq RESTART WITH 1");
      assertThat(changeBase(s)).isEqualTo(1);
    }

    try (JdbcStore store = JdbcStore.h2(dir)) {
      store.open();
      store.jobStore().upsert(JobRecord.fresh(spec("d"), T0));
    }
    try (Connection c = connection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT change_seq FROM kairos_jobs WHERE job_key = 'd'")) {
      r.next();
      assertThat(r.getLong(1)).as("the new job's stamp").isGreaterThan(highest);
    }
  }

  @Test
  void aWriteBackFailingOnAReusedId_movesTheSequence_andItsRetrySucceeds() throws SQLException {
    try (JdbcStore store = JdbcStore.h2(dir);
        Connection c = connection(); // the same database: one JVM shares an H2 file
        Statement s = c.createStatement()) {
      store.open();
      JobRecord job = store.jobStore().upsert(JobRecord.fresh(spec("nightly"), T0)).record();
      for (int i = 0; i < 3; i++) { // history ids 1-3: a retry without the repair fails on 2
        job = store.jobStore().runFinished(H2FileSizeTest.success(job)).orElseThrow();
      }
      s.execute("ALTER TABLE kairos_runs ALTER COLUMN id RESTART WITH 1"); // as an H2 restart
      // after a lossy kill would leave it, the store open all along (a server's restart)

      JobRecord stored = job;
      assertThatThrownBy(() -> store.jobStore().runFinished(H2FileSizeTest.success(stored)))
          .isInstanceOf(StoreException.class)
          .rootCause()
          .hasMessageContaining("PRIMARY KEY ON PUBLIC.KAIROS_RUNS(ID)");
      job = store.jobStore().runFinished(H2FileSizeTest.success(job)).orElseThrow();
      assertThat(job.runCount()).isEqualTo(4);
      assertThat(identityBase(s)).isGreaterThan(4);
    }
  }

  @Test
  void aClusteredStoresHeartbeat_movesASequenceLeftBehind() throws SQLException {
    String url = "jdbc:h2:mem:seqrepair" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    try (JdbcStore store = JdbcStore.builder().url(url).clustered(true).build();
        Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      store.open();
      store.jobStore().register("node-1");
      store.jobStore().upsert(JobRecord.fresh(spec("a"), T0));
      store.jobStore().upsert(JobRecord.fresh(spec("b"), T0));
      long highest = highestStamp(s);
      s.execute("ALTER SEQUENCE kairos_change_seq RESTART WITH 1");

      store.jobStore().heartbeat("node-1");

      assertThat(changeBase(s)).isEqualTo(highest + 1);
      s.execute("SHUTDOWN");
    }
  }

  private static JobSpec spec(String key) {
    return JobSpec.named(key).handler("h").fixedRate(Duration.ofMinutes(1));
  }

  private Connection connection() throws SQLException {
    return DriverManager.getConnection(JdbcStore.Builder.h2Url(dir.resolve("kairos")));
  }

  private static long highestStamp(Statement s) throws SQLException {
    try (ResultSet r =
        s.executeQuery(
            "SELECT GREATEST((SELECT COALESCE(MAX(change_seq), 0) FROM kairos_jobs),"
                + " (SELECT COALESCE(MAX(change_seq), 0) FROM kairos_deleted_jobs))")) {
      r.next();
      return r.getLong(1);
    }
  }

  private static long changeBase(Statement s) throws SQLException {
    try (ResultSet r =
        s.executeQuery(
            "SELECT BASE_VALUE FROM INFORMATION_SCHEMA.SEQUENCES"
                + " WHERE SEQUENCE_NAME = 'KAIROS_CHANGE_SEQ'")) {
      r.next();
      return r.getLong(1);
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
