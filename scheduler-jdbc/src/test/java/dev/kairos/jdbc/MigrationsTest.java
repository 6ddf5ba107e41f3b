package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.jdbc.internal.Dialect;
import dev.kairos.jdbc.internal.Migrations;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The DDL resources: one folder per dialect, in step with each other and with the runner's list.
 */
class MigrationsTest {
  private static final Pattern COLUMN = Pattern.compile("^\\s+([a-z_]+)\\s+", Pattern.MULTILINE);

  @Test
  void scripts_everyDialectHasExactlyTheListedScripts() throws Exception {
    for (Dialect d : Dialect.values()) {
      assertThat(scriptsIn(d)).as(d.folder()).isEqualTo(Migrations.SCRIPTS);
    }
  }

  /** The dialects' scripts declare the same columns in the same order (types may differ). */
  @Test
  void scripts_dialectsDeclareSameColumns() throws Exception {
    for (String script : Migrations.SCRIPTS) {
      assertThat(columns(Dialect.POSTGRESQL, script))
          .isEqualTo(columns(Dialect.H2, script))
          .isEqualTo(columns(Dialect.MARIADB, script))
          .isNotEmpty();
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
          .sorted()
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
