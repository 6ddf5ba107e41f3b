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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Versioned schema migrations: a {@code <prefix>schema_version} table with one row per applied
 * script, and per dialect the ordered scripts {@code dev/kairos/jdbc/<dialect>/V<n>__*.sql}, in
 * which {@code ${prefix}} stands for the table prefix. Script n brings the schema to version n.
 */
public final class Migrations {
  /** Each dialect's scripts, in order. A new script is appended here and in every folder. */
  public static final List<String> SCRIPTS = List.of("V1__jobs.sql", "V2__cluster.sql");

  private static final Logger log = LoggerFactory.getLogger(Migrations.class);

  private Migrations() {}

  /** The schema version this code works with. */
  public static int latest() {
    return SCRIPTS.size();
  }

  /** Creates or upgrades the schema in one transaction (H2 commits each DDL statement itself). */
  public static synchronized void migrate(Jdbi jdbi, Dialect dialect, String prefix) {
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
