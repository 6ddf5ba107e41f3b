package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.tck.MariaDbTestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * H2, MariaDB and MySQL's scripts (on MariaDB) commit each DDL statement by itself: a run of a
 * script ended after any of its statements (a connection lost, a process killed), before Flyway
 * recorded it, must leave tables that the next migration completes, to the schema a clean run
 * makes. Every script is cut after every one of its statements: the scripts before it applied and
 * recorded, the cut one's first statements run as its run would have run them, then {@link
 * Migrations#migrate} as {@code open()} calls it. Before {@link Leftovers}, each case but those
 * after an {@code UPDATE} or a cache size failed on what the cut run had made.
 */
class MigrationCutEverywhereTest {
  private static final String PREFIX = "kairos_";

  @ParameterizedTest
  @EnumSource(
      value = Dialect.class,
      names = {"H2", "MARIADB", "MYSQL"})
  void everyScriptCutAfterEveryStatement_theNextMigrationEndsAsACleanOne(Dialect dialect)
      throws Exception {
    List<String> clean = cleanSchema(dialect);
    assertThat(clean).isNotEmpty();
    int cases = 0;
    for (String script : Migrations.SCRIPTS) {
      int v = Migrations.version(script);
      List<String> statements = Leftovers.statements(Leftovers.read(dialect, script), PREFIX);
      for (int k = 1; k <= statements.size(); k++) {
        // v - 1 = 0: no history table yet, adopted by a baseline at 0; then the cut run's first
        // statements, each committed by itself
        try (Db db = Db.at(dialect, v - 1, statements.subList(0, k))) {

          Migrations.migrate(db.dataSource(), dialect, PREFIX);

          assertThat(schema(db, dialect))
              .as("%s cut after statement %d of %d", script, k, statements.size())
              .isEqualTo(clean);
          try (Connection c = db.dataSource().getConnection()) {
            assertThat(Migrations.version(c, dialect, PREFIX)).isEqualTo(Migrations.latest());
          }
          cases++;
        }
      }
    }
    assertThat(cases).isGreaterThan(20);
  }

  /**
   * H2 adds a column by copying the table ({@code <table>_COPY_<session>_<n>}, its rows, its
   * indexes as {@code <copy>_<name>}), dropping the table and renaming the copy, committing each
   * step but the renames: a process killed after the drop left the table missing and its rows in
   * the copy, and every later open failed ({@code Table "KAIROS_RUNS" not found}). Here that state
   * is made by hand for V3's first column of the runs table, with a row in it.
   */
  @Test
  void h2_aTableLeftUnderItsCopysName_isRenamedBackWithItsRows() throws Exception {
    List<String> clean = cleanSchema(Dialect.H2);
    try (Db db =
        Db.at(
            Dialect.H2,
            2,
            List.of(
                "INSERT INTO kairos_runs (job_key, outcome, attempt) VALUES ('a', 'SUCCESS', 1)",
                "ALTER TABLE kairos_runs RENAME TO \"KAIROS_RUNS_COPY_7_1\"",
                "ALTER INDEX kairos_runs_job RENAME TO \"KAIROS_RUNS_COPY_7_1_KAIROS_RUNS_JOB\"",
                "ALTER TABLE \"KAIROS_RUNS_COPY_7_1\" ADD COLUMN recovery BOOLEAN DEFAULT FALSE"
                    + " NOT NULL"))) {

      Migrations.migrate(db.dataSource(), Dialect.H2, PREFIX); // threw: KAIROS_RUNS not found

      assertThat(schema(db, Dialect.H2)).isEqualTo(clean);
      try (Connection c = db.dataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT job_key, recovery FROM kairos_runs")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("a");
        assertThat(rs.getBoolean(2)).isFalse();
        assertThat(rs.next()).isFalse();
      }
    }
  }

  /** Killed before the drop, the same copying left an orphan copy beside the whole table. */
  @Test
  void h2_anOrphanCopyOfATable_isDropped() throws Exception {
    List<String> clean = cleanSchema(Dialect.H2);
    try (Db db =
        Db.at(
            Dialect.H2,
            3,
            List.of("CREATE TABLE \"KAIROS_JOBS_COPY_4_12\" AS SELECT * FROM kairos_jobs"))) {

      Migrations.migrate(db.dataSource(), Dialect.H2, PREFIX);

      assertThat(schema(db, Dialect.H2)).isEqualTo(clean); // before: the copy stayed, for good
    }
  }

  /**
   * A script that failed with its connection up is recorded as failed, and Flyway refused to
   * migrate until that row was deleted by hand ({@code Detected failed migration to version 10}).
   * Now the row is deleted and the script, what its failed run did undone, runs again. The failure
   * is made by Flyway itself, without Kairos's callback, on a table where V10's column already is.
   */
  @ParameterizedTest
  @EnumSource(
      value = Dialect.class,
      names = {"H2", "MARIADB", "MYSQL"})
  void aScriptRecordedAsFailed_runsAgain(Dialect dialect) throws Exception {
    List<String> clean = cleanSchema(dialect);
    List<String> v10 =
        Leftovers.statements(Leftovers.read(dialect, "V10__concurrent_runs.sql"), PREFIX);
    try (Db db = Db.at(dialect, 9, v10)) {
      Flyway plain =
          Flyway.configure()
              .configuration(
                  Migrations.flyway(db.dataSource(), dialect, PREFIX, 0).getConfiguration())
              .callbacks(new org.flywaydb.core.api.callback.Callback[0])
              .load();
      assertThatThrownBy(plain::migrate).hasMessageContaining("V10__concurrent_runs.sql");
      assertThat(failedRows(db, dialect)).as("Flyway recorded the failure").isEqualTo(1);

      Migrations.migrate(db.dataSource(), dialect, PREFIX); // threw: detected failed migration

      assertThat(schema(db, dialect)).isEqualTo(clean);
      assertThat(failedRows(db, dialect)).isZero();
      try (Connection c = db.dataSource().getConnection()) {
        assertThat(Migrations.version(c, dialect, PREFIX)).isEqualTo(Migrations.latest());
      }
    }
  }

  private static int failedRows(Db db, Dialect dialect) throws SQLException {
    String q = dialect.mysqlFamily() ? "`" : "\"";
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT COUNT(*) FROM "
                    + q
                    + "kairos_schema_history"
                    + q
                    + " WHERE "
                    + q
                    + "success"
                    + q
                    + " = FALSE")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The schema a clean migration makes in a fresh database of the dialect. */
  private static List<String> cleanSchema(Dialect dialect) throws SQLException {
    try (Db db = Db.create(dialect)) {
      Migrations.migrate(db.dataSource(), dialect, PREFIX);
      return schema(db, dialect);
    }
  }

  private static void migrateTo(Db db, Dialect dialect, int version) {
    Flyway.configure()
        .configuration(Migrations.flyway(db.dataSource(), dialect, PREFIX, 0).getConfiguration())
        .target(String.valueOf(version))
        .load()
        .migrate();
  }

  /** The tables' columns, indexes and sequences, Flyway's history aside, in a stable order. */
  private static List<String> schema(Db db, Dialect dialect) throws SQLException {
    boolean h2 = dialect == Dialect.H2;
    String schema = dialect.currentSchema();
    List<String> rows = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement()) {
      add(
          st,
          "SELECT LOWER(table_name), LOWER(column_name), ordinal_position, data_type, is_nullable,"
              + " column_default FROM information_schema.columns WHERE table_schema = "
              + schema
              + " AND LOWER(table_name) <> 'kairos_schema_history' ORDER BY 1, 3",
          rows);
      add(
          st,
          h2
              ? "SELECT LOWER(table_name), LOWER(index_name), ordinal_position, LOWER(column_name)"
                  + " FROM information_schema.index_columns WHERE table_schema = "
                  + schema
                  + " AND LOWER(table_name) <> 'kairos_schema_history' ORDER BY 1, 2, 3"
              : "SELECT LOWER(table_name), LOWER(index_name), seq_in_index, LOWER(column_name),"
                  + " non_unique FROM information_schema.statistics WHERE table_schema = "
                  + schema
                  + " AND LOWER(table_name) <> 'kairos_schema_history' ORDER BY 1, 2, 3",
          rows);
      add(
          st,
          h2
              ? "SELECT LOWER(sequence_name), cache FROM information_schema.sequences WHERE"
                  + " sequence_schema = "
                  + schema
              : "SELECT LOWER(table_name), table_type FROM information_schema.tables WHERE"
                  + " table_schema = "
                  + schema
                  + " ORDER BY 1",
          rows);
    }
    // H2 names a primary key's index itself, differently in each database
    rows.replaceAll(r -> r.replaceAll("primary_key_[0-9a-f]+", "primary_key"));
    return rows;
  }

  private static void add(Statement st, String sql, List<String> rows) throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          row.append(rs.getString(i)).append('|');
        }
        rows.add(row.toString().toLowerCase(Locale.ROOT));
      }
    }
  }

  /** A fresh, empty database of the dialect, dropped at close. */
  private interface Db extends AutoCloseable {
    DataSource dataSource();

    @Override
    void close() throws SQLException;

    /**
     * A fresh database of the dialect migrated to {@code version} (none if 0), then these
     * statements run, each committed by itself.
     */
    static Db at(Dialect dialect, int version, List<String> statements) throws SQLException {
      Db db = create(dialect);
      if (version > 0) {
        migrateTo(db, dialect, version);
      }
      try (Connection c = db.dataSource().getConnection();
          Statement st = c.createStatement()) {
        for (String s : statements) {
          st.execute(s);
        }
      }
      return db;
    }

    static Db create(Dialect dialect) throws SQLException {
      if (dialect == Dialect.H2) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:cut_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return new Db() {
          @Override
          public DataSource dataSource() {
            return ds;
          }

          @Override
          public void close() throws SQLException {
            try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
              st.execute("SHUTDOWN");
            }
          }
        };
      }
      MariaDbTestDatabase db = MariaDbTestDatabase.create();
      db.assumeReachable();
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(
          dialect == Dialect.MYSQL
              ? "jdbc:mysql://127.0.0.1:3306/" + db.name() + "?sslMode=DISABLED"
              : db.url());
      config.setUsername(MariaDbTestDatabase.USER);
      config.setMaximumPoolSize(2);
      HikariDataSource ds = new HikariDataSource(config);
      return new Db() {
        @Override
        public DataSource dataSource() {
          return ds;
        }

        @Override
        public void close() {
          ds.close();
          db.close();
        }
      };
    }
  }
}
