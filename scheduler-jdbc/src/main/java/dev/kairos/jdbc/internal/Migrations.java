package dev.kairos.jdbc.internal;

import dev.kairos.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Versioned schema migrations, run by Flyway: per dialect the ordered scripts {@code
 * dev/kairos/jdbc/<dialect>/V<n>__*.sql}, in which the Flyway placeholder {@code ${prefix}} stands
 * for the table prefix, and a Flyway history table {@code <prefix>schema_history}, so the stores of
 * each prefix, and an application's own Flyway migrations ({@code flyway_schema_history}), keep
 * apart. Script n brings the schema to version n.
 *
 * <p>Tables made by the runner Kairos had before Flyway carry their version in {@code
 * <prefix>schema_version} instead; Flyway adopts them by a baseline at that version, then applies
 * the later scripts. That table is left as it was, with its rows.
 */
public final class Migrations {
  /**
   * Each dialect's scripts, in order. A new script is appended here and in every folder. A script's
   * version is its number ({@link #version}), not its place in this list.
   */
  public static final List<String> SCRIPTS =
      List.of(
          "V1__jobs.sql",
          "V2__cluster.sql",
          "V3__run_history.sql",
          "V4__catch_up_window.sql",
          "V5__overlap.sql",
          "V6__backfill.sql",
          "V7__calendars.sql",
          "V8__limits.sql",
          "V9__change_seq_cache.sql",
          "V10__concurrent_runs.sql",
          "V11__partial_indexes.sql",
          "V12__run_id_cache.sql",
          "V13__unused_indexes.sql",
          "V14__run_backfill_flag.sql");

  /** The Flyway history table's name after the table prefix. */
  public static final String HISTORY = "schema_history";

  /** The version table of the runner before Flyway, after the table prefix; read, never written. */
  public static final String LEGACY = "schema_version";

  private static final Logger log = LoggerFactory.getLogger(Migrations.class);

  private Migrations() {}

  /**
   * The schema version this code works with: the last script's (versions may leave gaps).
   *
   * @return the version of the last script
   */
  public static int latest() {
    return version(SCRIPTS.get(SCRIPTS.size() - 1));
  }

  /**
   * The schema version a script brings the tables to: its number.
   *
   * @param script a script's file name, {@code V<n>__<name>.sql}
   * @return n
   */
  public static int version(String script) {
    return Integer.parseInt(script.substring(1, script.indexOf("__")));
  }

  /**
   * Creates or upgrades the schema with Flyway: validated first, under Flyway's lock (PostgreSQL
   * and MariaDB: a database lock, so instances starting together apply each script once), never
   * cleaned, never out of order. A schema whose history is already at {@link #latest()} costs one
   * connection and two queries: no Flyway, no lock, no DDL. Refuses tables newer than this code.
   *
   * @param dataSource where Flyway takes its connections
   * @param dialect the database's dialect, which picks the scripts' folder
   * @param prefix the table prefix
   * @throws StoreException if the schema is newer than this code or a migration fails
   */
  public static synchronized void migrate(DataSource dataSource, Dialect dialect, String prefix) {
    State s = state(dataSource, dialect, prefix);
    refuseNewer(s, prefix);
    if (s.history() && s.legacy() == 0 && s.version() == latest()) {
      return;
    }
    if (!s.failed().isEmpty() && dialect != Dialect.POSTGRESQL) {
      retryFailed(dataSource, dialect, prefix, s.failed());
    }
    int baseline = s.legacy();
    if (s.history() && baseline > 0) {
      // an adoption cut before its baseline row: Flyway baselines only without a history table,
      // so the empty one is dropped (it holds nothing) and made again with the baseline
      dropEmptyHistory(dataSource, dialect, prefix);
    }
    Flyway flyway = flyway(dataSource, dialect, prefix, baseline);
    MigrateResult r;
    try {
      r = flyway.migrate();
    } catch (FlywayException e) {
      throw new StoreException(
          "migrating tables "
              + prefix
              + "* ("
              + dialect
              + ", history in "
              + prefix
              + HISTORY
              + ") to schema version "
              + latest()
              + " failed: "
              + e.getMessage(),
          e);
    }
    if (baseline > 0) {
      log.info(
          "tables {}*: adopted at schema version {} from {}{} (kept as it was)",
          prefix,
          baseline,
          prefix,
          LEGACY);
    }
    log.info(
        "tables {}*: applied {} script(s) ({}), now at schema version {}",
        prefix,
        r.migrationsExecuted,
        dialect,
        r.targetSchemaVersion == null ? latest() : r.targetSchemaVersion);
    refuseNewer(state(dataSource, dialect, prefix), prefix); // one that a newer instance made
  }

  /**
   * Fails unless the schema exists at {@link #latest()}: for stores that do not create it. Reads
   * the Flyway history, or the version table of the runner before Flyway if there is none.
   *
   * @param dataSource where the connection comes from
   * @param dialect the database's dialect
   * @param prefix the table prefix
   * @throws StoreException naming the version found, the one needed and what to apply
   */
  public static void check(DataSource dataSource, Dialect dialect, String prefix) {
    State s = state(dataSource, dialect, prefix);
    refuseNewer(s, prefix);
    if (s.version() < latest()) {
      throw new StoreException(
          "tables "
              + prefix
              + "* are at schema version "
              + s.version()
              + " ("
              + prefix
              + HISTORY
              + (s.history() ? "" : " missing")
              + "), Kairos needs "
              + latest()
              + ": apply "
              + SCRIPTS.stream().filter(n -> version(n) > s.version()).toList()
              + " from dev/kairos/jdbc/"
              + dialect.folder()
              + "/ in the kairos jar with Flyway (table "
              + prefix
              + HISTORY
              + ", placeholder prefix="
              + prefix
              + "), or build the store with createSchema(true)");
    }
  }

  /**
   * The schema version of the tables with this prefix: the highest version applied successfully in
   * the Flyway history table, else the version in the table of the runner before Flyway, else 0.
   *
   * @param c an open connection
   * @param dialect the database's dialect
   * @param prefix the table prefix
   * @return the version, 0 if there are no tables
   * @throws SQLException if the database fails
   */
  public static int version(Connection c, Dialect dialect, String prefix) throws SQLException {
    return state(c, dialect, prefix).version();
  }

  /**
   * Fails with a {@link StoreException} saying so unless the store can write its tables: a
   * read-only database (H2 opened read-only, a PostgreSQL standby or read-only transaction, a user
   * without UPDATE rights) would accept the jobs and then fail every write-back. The probe is an
   * UPDATE of the jobs table that matches no row (no key sorts below the empty one, and the primary
   * key's index answers that at once), which such databases refuse all the same.
   *
   * @param jdbi the store's connections
   * @param prefix the table prefix
   * @param database the database, as the message names it
   * @throws StoreException if the tables are not writable
   */
  public static void checkWritable(Jdbi jdbi, String prefix, String database) {
    try {
      jdbi.useHandle(
          h -> h.execute("UPDATE " + prefix + "jobs SET version = version WHERE job_key < ''"));
    } catch (JdbiException e) {
      throw new StoreException(
          "the job store "
              + database
              + " is not writable ("
              + rootMessage(e)
              + "): Kairos writes every run's outcome, so it needs a database it can write;"
              + " for H2, check that the folder and its files are writable and that the URL sets"
              + " no ACCESS_MODE_DATA=r",
          e);
    }
  }

  /**
   * Flyway set up for the tables of this prefix. Scanning is limited to the dialect's folder.
   *
   * @param dataSource where Flyway takes its connections
   * @param dialect the database's dialect, which picks the scripts' folder
   * @param prefix the table prefix: of the history table, and the scripts' placeholder
   * @param baseline the version a schema found without a history table is at: 0 for none, so every
   *     script runs (a schema holding other tables than Kairos's is no reason to refuse), or the
   *     version of the runner before Flyway, whose tables are adopted at it
   * @return the Flyway instance, not run yet
   */
  public static Flyway flyway(DataSource dataSource, Dialect dialect, String prefix, int baseline) {
    FluentConfiguration config =
        Flyway.configure(Migrations.class.getClassLoader())
            .dataSource(dataSource)
            .table(prefix + HISTORY)
            .locations("classpath:dev/kairos/jdbc/" + dialect.folder())
            .failOnMissingLocations(true)
            .placeholders(Map.of("prefix", prefix))
            .baselineOnMigrate(true)
            .baselineVersion(String.valueOf(baseline))
            .baselineDescription(
                baseline == 0 ? "Kairos: no tables yet" : "Kairos: adopted from " + prefix + LEGACY)
            .validateOnMigrate(true)
            .cleanDisabled(true)
            .outOfOrder(false)
            .createSchemas(false);
    // PostgreSQL: one connection, so that a script's DDL and its history row commit in one
    // transaction. With Flyway's default (its lock taken inside the script's transaction), the
    // history row was written on a second connection after the script had committed, and a
    // connection cut between the two left the DDL applied and unrecorded: every later open failed
    // on it (MigrationCutTest). The lock is then a session advisory lock, which ends with the
    // connection. Only for PostgreSQL (an application on another database may leave Flyway's
    // PostgreSQL module out), and through the plugin register, which Flyway 11 (Spring Boot's)
    // has as 13 does, where 11.7 lacks getConfigurationExtension.
    if (dialect == Dialect.POSTGRESQL) {
      config
          .getPluginRegister()
          .getPlugin(PostgreSQLConfigurationExtension.class)
          .setTransactionalLock(false);
    } else {
      // H2, MariaDB and MySQL commit each DDL statement by itself: no transaction can hold a
      // script and its history row, so what a cut run left is undone before the script runs again.
      config.callbacks(new Leftovers(dialect, prefix));
    }
    return config.load();
  }

  /**
   * H2, MariaDB and MySQL: deletes the history rows Flyway wrote for Kairos scripts that failed, so
   * that they run again. On these databases Flyway records a script that failed with its connection
   * up (a statement refused: a missing privilege, a full disk) as failed and refuses to migrate
   * until the row is deleted by hand. A Kairos script can be run again safely: {@link Leftovers}
   * undoes what the failed run did before it runs. A failure that lasts fails again, as it did.
   */
  private static void retryFailed(
      DataSource dataSource, Dialect dialect, String prefix, List<String> failed) {
    try (Connection c = dataSource.getConnection()) {
      String table = quoted(dialect, tableName(c, dialect, prefix + HISTORY));
      try (PreparedStatement ps =
          c.prepareStatement(
              "DELETE FROM "
                  + table
                  + " WHERE "
                  + quoted(dialect, "version")
                  + " = ? AND "
                  + quoted(dialect, "success")
                  + " = ?")) {
        for (String v : failed) {
          ps.setString(1, v);
          ps.setBoolean(2, false);
          ps.executeUpdate();
        }
      }
      if (!c.getAutoCommit()) {
        c.commit(); // a pool configured without auto-commit
      }
      log.warn(
          "tables {}*: schema version(s) {} failed in an earlier run (recorded as failed in {}{});"
              + " the record is deleted and the script runs again, after what that run did is"
              + " undone",
          prefix,
          failed,
          prefix,
          HISTORY);
    } catch (SQLException e) {
      throw new StoreException(
          "deleting the failed migrations of tables " + prefix + "* failed: " + e.getMessage(), e);
    }
  }

  private static void refuseNewer(State s, String prefix) {
    if (s.version() > latest()) {
      throw new dev.kairos.StoreSetupException(
          "tables "
              + prefix
              + "* have schema version "
              + s.version()
              + " (in "
              + prefix
              + (s.history() ? HISTORY : LEGACY)
              + "), newer than this Kairos knows ("
              + latest()
              + "): upgrade Kairos");
    }
  }

  /**
   * What the database says of the tables' version. {@code history}: the Flyway history table
   * exists; {@code version}: the schema version; {@code legacy}: the old runner's version, to adopt
   * by a baseline (0 if none, or if it does not count because the history table has rows); {@code
   * failed}: the versions of Kairos's scripts Flyway recorded as failed.
   */
  private record State(boolean history, int version, int legacy, List<String> failed) {}

  private static State state(DataSource dataSource, Dialect dialect, String prefix) {
    try (Connection c = dataSource.getConnection()) {
      return state(c, dialect, prefix);
    } catch (SQLException e) {
      throw new StoreException(
          "reading the schema version of tables " + prefix + "* failed: " + e.getMessage(), e);
    }
  }

  /** Asks information_schema first: a failed query on H2 would leave a trace.db file. */
  private static State state(Connection c, Dialect dialect, String prefix) throws SQLException {
    String history = tableName(c, dialect, prefix + HISTORY);
    if (history != null) {
      List<Applied> applied = history(c, dialect, history);
      int v = 0; // the highest that succeeded, read in Java: the column is text, "10" < "9"
      List<String> failed = new ArrayList<>();
      for (Applied a : applied) {
        if (a.success()) {
          v = Math.max(v, major(a.version()));
        } else if (major(a.version()) <= latest()) {
          failed.add(a.version());
        }
      }
      if (v == 0 && rows(c, dialect, history) == 0) {
        // Flyway made the history table, then was cut before its first row (on H2, MariaDB and
        // MySQL two commits): tables of the runner before Flyway are still to be adopted
        String legacy = tableName(c, dialect, prefix + LEGACY);
        int lv = legacy == null ? 0 : legacyVersion(c, legacy);
        return new State(true, lv, lv, List.of());
      }
      return new State(true, v, 0, List.copyOf(failed));
    }
    String legacy = tableName(c, dialect, prefix + LEGACY);
    int v = legacy == null ? 0 : legacyVersion(c, legacy);
    if (legacy == null && dialect == Dialect.POSTGRESQL) {
      requireSchema(c, prefix); // new tables: is there a schema to make them in?
    }
    return new State(false, v, v, List.of());
  }

  /**
   * Fails, saying what to do, if PostgreSQL has no schema to create tables in: the URL's {@code
   * currentSchema} (or the user's {@code search_path}) names none that exists. Flyway would only
   * fail later, after retrying its lock, with a message several screens long.
   */
  private static void requireSchema(Connection c, String prefix) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT current_schema()")) {
      if (rs.next() && rs.getString(1) == null) {
        throw new StoreException(
            "creating tables "
                + prefix
                + "* failed: no schema to create them in (the schema of the URL's currentSchema,"
                + " or of the user's search_path, does not exist): CREATE SCHEMA it first, or fix"
                + " the URL");
      }
    }
  }

  private static void dropEmptyHistory(DataSource dataSource, Dialect dialect, String prefix) {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      String table = tableName(c, dialect, prefix + HISTORY);
      if (table != null && rows(c, dialect, table) == 0) {
        st.execute("DROP TABLE " + quoted(dialect, table));
        if (!c.getAutoCommit()) {
          c.commit(); // a pool configured without auto-commit
        }
        log.warn(
            "tables {}*: {} was empty (an adoption of {}{} cut before its baseline row); dropped,"
                + " the adoption runs again",
            prefix,
            table,
            prefix,
            LEGACY);
      }
    } catch (SQLException e) {
      throw new StoreException(
          "dropping the empty history table of tables " + prefix + "* failed: " + e.getMessage(),
          e);
    }
  }

  private static int rows(Connection c, Dialect dialect, String table) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + quoted(dialect, table))) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** A versioned row of Flyway's history: its version, and whether it succeeded. */
  private record Applied(String version, boolean success) {}

  /** The versioned rows of Flyway's history table (a baseline's too), in no order. */
  private static List<Applied> history(Connection c, Dialect dialect, String table)
      throws SQLException {
    List<Applied> rows = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT "
                    + quoted(dialect, "version")
                    + ", "
                    + quoted(dialect, "success")
                    + " FROM "
                    + quoted(dialect, table))) {
      while (rs.next()) {
        String v = rs.getString(1);
        if (v != null) {
          rows.add(new Applied(v, rs.getBoolean(2)));
        }
      }
    }
    return rows;
  }

  /** A name as Flyway's history table spells it, quoted for the dialect. */
  private static String quoted(Dialect dialect, String name) {
    String q = dialect.mysqlFamily() ? "`" : "\"";
    return q + name + q;
  }

  private static int major(String version) {
    int dot = version.indexOf('.');
    try {
      return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE; // no version of Kairos's: refused as newer
    }
  }

  private static int legacyVersion(Connection c, String table) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(version), 0) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The table's name as the database spells it, or null if there is none in the schema. */
  private static String tableName(Connection c, Dialect dialect, String table) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                + dialect.currentSchema()
                + " AND LOWER(table_name) = LOWER(?)")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = String.valueOf(t.getMessage());
    int nl = m.indexOf('\n');
    int sql = m.indexOf("; SQL statement");
    int end = sql >= 0 ? sql : nl >= 0 ? nl : m.length();
    return m.substring(0, end).trim();
  }
}
