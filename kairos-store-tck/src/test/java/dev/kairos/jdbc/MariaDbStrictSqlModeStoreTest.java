package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on MariaDB with the {@code sql_mode} a cautious DBA or a MySQL default sets:
 * {@code ANSI_QUOTES} (a double-quoted word is a name, not a string), {@code NO_BACKSLASH_ESCAPES},
 * {@code PIPES_AS_CONCAT}, {@code ONLY_FULL_GROUP_BY} (MySQL 8's default), strict tables and no
 * zero dates. Every statement of the store must mean the same under them.
 *
 * <p>Tagged {@code long}: not in the test command (the contract's second run on the MariaDB server
 * after {@code MariaDbStoreTest}'s, about 80 s); CI runs it in a second one (README, "Two
 * commands").
 */
@org.junit.jupiter.api.Tag("long")
class MariaDbStrictSqlModeStoreTest extends JdbcStoreContract {
  static final String MODES =
      "ANSI_QUOTES,NO_BACKSLASH_ESCAPES,PIPES_AS_CONCAT,ONLY_FULL_GROUP_BY,STRICT_ALL_TABLES,"
          + "NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";

  private static MariaDbTestDatabase created;
  private static MariaDbTestDatabase db;

  @BeforeAll
  static void createDatabase() {
    created = MariaDbTestDatabase.create();
    db = created.withSqlMode(MODES);
  }

  @AfterAll
  static void dropDatabase() {
    if (created != null) {
      created.close();
    }
  }

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Test
  void theStoresConnections_runUnderTheseModes() throws Exception {
    try (Connection c = db.connect();
        ResultSet rs = c.createStatement().executeQuery("SELECT @@SESSION.sql_mode")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1))
          .contains("ANSI_QUOTES", "NO_BACKSLASH_ESCAPES", "ONLY_FULL_GROUP_BY");
    }
  }
}
