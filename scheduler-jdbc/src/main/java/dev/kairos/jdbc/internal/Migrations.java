package dev.kairos.jdbc.internal;

import dev.kairos.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Versioned schema migrations: a {@code <prefix>schema_version} table with one row per applied
 * script, and per dialect the ordered scripts {@code dev/kairos/jdbc/<dialect>/V<n>__*.sql}, in
 * which {@code ${prefix}} stands for the table prefix. Script n brings the schema to version n.
 */
public final class Migrations {
  /** Each dialect's scripts, in order. A new script is appended here and in every folder. */
  public static final List<String> SCRIPTS =
      List.of("V1__jobs.sql", "V2__cluster.sql", "V3__run_history.sql", "V4__catch_up_window.sql");

  private static final Logger log = LoggerFactory.getLogger(Migrations.class);

  private Migrations() {}

  /** The schema version this code works with. */
  public static int latest() {
    return SCRIPTS.size();
  }

  /**
   * Creates or upgrades the schema in one transaction (H2 commits each DDL statement itself). A
   * schema already at {@link #latest()} costs one query: no lock, no DDL, no transaction.
   */
  public static synchronized void migrate(Jdbi jdbi, Dialect dialect, String prefix) {
    if (isCurrent(jdbi, dialect, prefix)) {
      return;
    }
    jdbi.useTransaction(
        h -> {
          dialect.lockForMigration(h, prefix);
          try {
            apply(h, dialect, prefix);
          } finally {
            dialect.unlockAfterMigration(h, prefix);
          }
        });
  }

  /**
   * Fails with a {@link StoreException} saying so unless the store can write its tables: a
   * read-only database (H2 opened read-only, a PostgreSQL standby or read-only transaction, a user
   * without UPDATE rights) would accept the jobs and then fail every write-back. The probe is an
   * UPDATE that matches no row, which such databases refuse all the same.
   */
  public static void checkWritable(Jdbi jdbi, String prefix, String database) {
    try {
      jdbi.useHandle(
          h ->
              h.execute(
                  "UPDATE " + prefix + "schema_version SET version = version WHERE version < 0"));
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

  /**
   * True if the version table exists and says {@link #latest()}: two queries in auto-commit. The
   * version row is written in the transaction that applies its script, after the script, so a
   * migration under way reads as not current and the caller takes the locked path.
   */
  private static boolean isCurrent(Jdbi jdbi, Dialect dialect, String prefix) {
    try {
      // Asks information_schema first: a failed query on H2 would leave a kairos.trace.db file.
      return jdbi.withHandle(
          h ->
              tableExists(h, dialect, prefix + "schema_version") && version(h, prefix) == latest());
    } catch (JdbiException e) {
      return false; // the locked path reports it
    }
  }

  private static void apply(Handle h, Dialect dialect, String prefix) {
    h.execute(
        "CREATE TABLE IF NOT EXISTS "
            + prefix
            + "schema_version (version INTEGER NOT NULL"
            + " PRIMARY KEY, script VARCHAR(200) NOT NULL, installed_at TIMESTAMP DEFAULT"
            + " CURRENT_TIMESTAMP)");
    for (int v = version(h, prefix) + 1; v <= latest(); v++) {
      String script = SCRIPTS.get(v - 1);
      statements(dialect, script, prefix).forEach(h::execute);
      h.execute(
          "INSERT INTO " + prefix + "schema_version (version, script) VALUES (?, ?)", v, script);
      log.info("tables {}*: applied {} ({})", prefix, script, dialect);
    }
  }

  /** Fails unless the schema exists at {@link #latest()}: for stores that do not create it. */
  public static void check(Jdbi jdbi, Dialect dialect, String prefix) {
    int v =
        jdbi.withHandle(
            h -> tableExists(h, dialect, prefix + "schema_version") ? version(h, prefix) : 0);
    if (v < latest()) {
      throw new StoreException(
          "tables "
              + prefix
              + "* are at schema version "
              + v
              + " ("
              + prefix
              + "schema_version"
              + (v == 0 ? " missing" : "")
              + "), Kairos needs "
              + latest()
              + ": apply "
              + SCRIPTS.subList(v, latest())
              + " from dev/kairos/jdbc/"
              + dialect.folder()
              + "/ in the kairos jar, with ${prefix} replaced by "
              + prefix
              + ", or build the store with createSchema(true)");
    }
  }

  /** The applied version; a {@link StoreException} if newer than this code knows. */
  private static int version(Handle h, String prefix) {
    int v =
        h.createQuery("SELECT COALESCE(MAX(version), 0) FROM " + prefix + "schema_version")
            .mapTo(Integer.class)
            .one();
    if (v > latest()) {
      throw new StoreException(
          "tables "
              + prefix
              + "* have schema version "
              + v
              + ", newer than this Kairos knows ("
              + latest()
              + "): upgrade Kairos");
    }
    return v;
  }

  private static boolean tableExists(Handle h, Dialect dialect, String table) {
    return h.createQuery(
                "SELECT COUNT(*) FROM information_schema.tables"
                    + " WHERE table_schema = "
                    + dialect.currentSchema()
                    + " AND LOWER(table_name) = LOWER(?)")
            .bind(0, table)
            .mapTo(Integer.class)
            .one()
        > 0;
  }

  /** The statements of a script: comment lines dropped, split at semicolons ending a line. */
  static List<String> statements(Dialect dialect, String script, String prefix) {
    String path = "/dev/kairos/jdbc/" + dialect.folder() + "/" + script;
    try (InputStream in = Migrations.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing DDL resource " + path);
      }
      String text =
          new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${prefix}", prefix);
      String code =
          text.lines().filter(l -> !l.strip().startsWith("--")).collect(Collectors.joining("\n"));
      return Arrays.stream(code.split(";\\s*(\\n|$)"))
          .map(String::strip)
          .filter(s -> !s.isEmpty())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("reading DDL resource " + path, e);
    }
  }
}
