package dev.kairos.cli;

import dev.kairos.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The CLI over PostgreSQL at 127.0.0.1:5432 (database {@code test}, user {@code postgres}), in a
 * schema of its own dropped afterwards. Skipped, saying so, if the server is unreachable, unless
 * {@code CI} is set.
 */
class PostgresCliTest extends CliContract {
  static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/test";
  static final String SCHEMA =
      "kairos_cli_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  static String unreachable;

  @BeforeAll
  static void createSchema() {
    try (Connection c = DriverManager.getConnection(SERVER, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + SCHEMA);
    } catch (Exception e) {
      unreachable = "PostgreSQL at 127.0.0.1:5432 (database test, user postgres) unreachable: " + e;
      if (System.getenv("CI") != null) {
        throw new AssertionError(unreachable + " (CI is set, so this fails)", e);
      }
    }
  }

  @AfterAll
  static void dropSchema() throws Exception {
    if (unreachable == null) {
      try (Connection c = DriverManager.getConnection(SERVER, "postgres", "");
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA " + SCHEMA + " CASCADE");
      }
    }
  }

  @BeforeEach
  @Override
  void populate() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping");
    super.populate();
  }

  @Override
  String url() {
    return SERVER + "?currentSchema=" + SCHEMA;
  }

  @Override
  List<String> storeOptions() {
    return List.of("--url", url(), "--user", "postgres");
  }

  @Override
  JdbcStore.Builder builder(String prefix) {
    return JdbcStore.builder().url(url()).user("postgres").poolSize(2).tablePrefix(prefix);
  }

  @Override
  Connection connect() throws Exception {
    return open(url(), "postgres", "");
  }
}
