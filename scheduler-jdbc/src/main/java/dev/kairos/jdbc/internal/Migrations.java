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
  public static final List<String> SCRIPTS = List.of("V1__jobs.sql");

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
          h.execute(
              "CREATE TABLE IF NOT EXISTS "
                  + prefix
                  + "schema_version (version INTEGER NOT NULL PRIMARY KEY,"
                  + " script VARCHAR(200) NOT NULL,"
                  + " installed_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)");
          int current = checkNotNewer(version(h, prefix), prefix);
          for (int v = current + 1; v <= latest(); v++) {
            String script = SCRIPTS.get(v - 1);
            for (String statement : statements(dialect, script, prefix)) {
              h.execute(statement);
            }
            h.createUpdate(
                    "INSERT INTO " + prefix + "schema_version (version, script) VALUES (?, ?)")
                .bind(0, v)
                .bind(1, script)
                .execute();
            log.info("schema of tables {}*: applied {} ({})", prefix, script, dialect);
          }
        });
  }

  /** Fails unless the schema exists at {@link #latest()}, for stores that do not create it. */
  public static void check(Jdbi jdbi, Dialect dialect, String prefix) {
    jdbi.useHandle(
        h -> {
          String table = prefix + "schema_version";
          if (!tableExists(h, table) || !tableExists(h, prefix + "jobs")) {
            throw new StoreException(
                "table "
                    + table
                    + " or "
                    + prefix
                    + "jobs not found in the current schema: run the scripts in"
                    + " dev/kairos/jdbc/"
                    + dialect.folder()
                    + "/ of the kairos jar (with ${prefix} replaced by '"
                    + prefix
                    + "'), or build the store with createSchema(true)");
          }
          int v = checkNotNewer(version(h, prefix), prefix);
          if (v < latest()) {
            throw new StoreException(
                "tables "
                    + prefix
                    + "* have schema version "
                    + v
                    + ", this Kairos needs "
                    + latest()
                    + ": apply "
                    + SCRIPTS.subList(v, latest())
                    + " or build the store with createSchema(true)");
          }
        });
  }

  private static int checkNotNewer(int version, String prefix) {
    if (version > latest()) {
      throw new StoreException(
          "tables "
              + prefix
              + "* have schema version "
              + version
              + ", newer than this Kairos knows ("
              + latest()
              + "): upgrade Kairos");
    }
    return version;
  }

  private static int version(Handle h, String prefix) {
    return h.createQuery("SELECT COALESCE(MAX(version), 0) FROM " + prefix + "schema_version")
        .mapTo(Integer.class)
        .one();
  }

  private static boolean tableExists(Handle h, String table) {
    return h.createQuery(
                "SELECT COUNT(*) FROM information_schema.tables"
                    + " WHERE table_schema = CURRENT_SCHEMA AND LOWER(table_name) = LOWER(?)")
            .bind(0, table)
            .mapTo(Integer.class)
            .one()
        > 0;
  }

  /** The statements of a script: comment lines dropped, split at semicolons ending a line. */
  static List<String> statements(Dialect dialect, String script, String prefix) {
    String text = resource(dialect.folder() + "/" + script).replace("${prefix}", prefix);
    String code =
        text.lines().filter(l -> !l.strip().startsWith("--")).collect(Collectors.joining("\n"));
    return Arrays.stream(code.split(";\\s*(\\n|$)"))
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .toList();
  }

  private static String resource(String path) {
    try (InputStream in = Migrations.class.getResourceAsStream("/dev/kairos/jdbc/" + path)) {
      if (in == null) {
        throw new IllegalStateException("missing DDL resource dev/kairos/jdbc/" + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("reading DDL resource dev/kairos/jdbc/" + path, e);
    }
  }
}
