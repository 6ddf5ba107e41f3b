package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.jdbc.internal.Dialect;
import dev.kairos.jdbc.internal.Migrations;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DDL resources: one folder per dialect, in step with each other and with the runner's list,
 * and found by Flyway as the store configures it.
 */
class MigrationsTest {
  private static final Pattern COLUMN = Pattern.compile("^\\s+([a-z_]+)\\s+", Pattern.MULTILINE);

  @Test
  void scripts_everyDialectHasExactlyTheListedScripts() throws Exception {
    for (Dialect d : Dialect.values()) {
      assertThat(scriptsIn(d)).as(d.folder()).isEqualTo(Migrations.SCRIPTS);
    }
  }

  /**
   * The dialects' scripts declare the same columns in the same order (types may differ); a script
   * that changes no column (versions 9 and 12 tune H2's sequences only) declares none in any
   * dialect.
   */
  @Test
  void scripts_dialectsDeclareSameColumns() throws Exception {
    for (String script : Migrations.SCRIPTS) {
      assertThat(columns(Dialect.POSTGRESQL, script))
          .as(script)
          .isEqualTo(columns(Dialect.H2, script))
          .isEqualTo(columns(Dialect.MARIADB, script));
    }
    assertThat(columns(Dialect.H2, Migrations.SCRIPTS.get(0))).contains("job_key", "version");
  }

  /**
   * Flyway, set up as the store sets it up, finds in each dialect's folder exactly the listed
   * scripts as versions 1 to latest, none applied yet on an empty database.
   */
  @Test
  void flyway_resolvesEachDialectsScriptsAsVersionsInOrder() {
    JdbcDataSource empty = new JdbcDataSource();
    empty.setURL("jdbc:h2:mem:migrations-resolve;DB_CLOSE_DELAY=-1");
    for (Dialect d : Dialect.values()) {
      Flyway flyway = Migrations.flyway(empty, d, "resolve_", 0);
      MigrationInfo[] pending = flyway.info().pending();
      assertThat(Stream.of(pending).map(MigrationInfo::getScript))
          .as(d.folder())
          .containsExactlyElementsOf(Migrations.SCRIPTS);
      assertThat(Stream.of(pending).map(i -> i.getVersion().getVersion()))
          .containsExactlyElementsOf(
              Migrations.SCRIPTS.stream().map(x -> String.valueOf(Migrations.version(x))).toList());
    }
  }

  /**
   * A pool of one connection is enough to create the tables: the version read gives its connection
   * back before Flyway takes one.
   */
  @Test
  void open_poolOfOneConnection_createsTheSchema(@TempDir Path dir) throws Exception {
    try (JdbcStore s = JdbcStore.builder().h2(dir).poolSize(1).build()) {
      s.open();
    }
    try (Connection c =
        DriverManager.getConnection("jdbc:h2:" + dir.resolve("kairos").toAbsolutePath())) {
      assertThat(Migrations.version(c, Dialect.H2, JdbcStore.DEFAULT_TABLE_PREFIX))
          .isEqualTo(Migrations.latest());
      String prefix = JdbcStore.DEFAULT_TABLE_PREFIX.toUpperCase(java.util.Locale.ROOT);
      // version 9: the change-feed sequence is flushed to the file once per 4096 values, not 32
      assertThat(
              h2Cache(
                  c,
                  "SELECT CACHE FROM INFORMATION_SCHEMA.SEQUENCES WHERE SEQUENCE_NAME = '"
                      + prefix
                      + "CHANGE_SEQ'"))
          .isEqualTo(4096);
      // version 12: so are the run history's ids
      assertThat(
              h2Cache(
                  c,
                  "SELECT IDENTITY_CACHE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = '"
                      + prefix
                      + "RUNS' AND COLUMN_NAME = 'ID'"))
          .isEqualTo(4096);
      // version 13: the job table's state and calendar indexes are gone, the others kept
      List<String> indexes = new java.util.ArrayList<>();
      try (var rs =
          c.createStatement()
              .executeQuery(
                  "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME = '"
                      + prefix
                      + "JOBS' ORDER BY INDEX_NAME")) {
        while (rs.next()) {
          indexes.add(rs.getString(1));
        }
      }
      assertThat(indexes)
          .contains(prefix + "JOBS_DUE", prefix + "JOBS_CHANGE", prefix + "JOBS_LEASE")
          .doesNotContain(prefix + "JOBS_STATE", prefix + "JOBS_CALENDAR");
    }
  }

  /** The one value {@code sql} selects: an H2 sequence's or identity column's cache. */
  private static long h2Cache(Connection c, String sql) throws java.sql.SQLException {
    try (var rs = c.createStatement().executeQuery(sql)) {
      assertThat(rs.next()).as("a row for %s", sql).isTrue();
      return rs.getLong(1);
    }
  }

  /**
   * MySQL's scripts are MariaDB's but for the collation clause and, in version 2, the counter table
   * {@code change_stamps} (column {@code seq}) where MariaDB creates a sequence.
   */
  @Test
  void scripts_mysqlDiffersFromMariaDbOnlyInCollationAndCounter() throws Exception {
    for (String script : Migrations.SCRIPTS) {
      List<String> mysql = columns(Dialect.MYSQL, script);
      assertThat(mysql.stream().filter(c -> !c.equals("seq")).toList())
          .as(script)
          .isEqualTo(columns(Dialect.MARIADB, script));
      assertThat(code(Dialect.MYSQL, script))
          .as(script)
          .doesNotContain("SEQUENCE")
          .doesNotContain("COLLATE=utf8mb4_nopad_bin;");
    }
    assertThat(code(Dialect.MYSQL, "V1__jobs.sql"))
        .contains("/*!80017 COLLATE=utf8mb4_0900_bin */ /*M!100600 COLLATE=utf8mb4_nopad_bin */");
  }

  /** A script without its comment lines. */
  private static String code(Dialect d, String script) throws Exception {
    return Files.readString(folder(d).resolve(script))
        .lines()
        .filter(l -> !l.startsWith("--"))
        .collect(java.util.stream.Collectors.joining("\n"));
  }

  private static List<String> scriptsIn(Dialect d) throws IOException, URISyntaxException {
    try (Stream<Path> files = Files.list(folder(d))) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".sql"))
          .sorted(java.util.Comparator.comparingInt(Migrations::version)) // V10 after V9
          .toList();
    }
  }

  private static List<String> columns(Dialect d, String script) throws Exception {
    String text = Files.readString(folder(d).resolve(script));
    return COLUMN.matcher(text).results().map(m -> m.group(1)).toList();
  }

  private static Path folder(Dialect d) throws URISyntaxException {
    return Path.of(MigrationsTest.class.getResource("/dev/kairos/jdbc/" + d.folder()).toURI());
  }
}
