package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.StoreException;
import dev.kairos.tck.MariaDbTestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MariaDB: a connection cut while {@code open()} creates the tables leaves a schema the next {@code
 * open()} completes. MariaDB commits each DDL statement by itself, so a cut after a script's
 * statement and before Flyway records the script left it applied, in part or whole, and unrecorded:
 * every later open failed on it ({@code Duplicate column name 'kind'}). Now what the script had
 * made is dropped before it runs again, and the schema ends as a clean one.
 */
class MariaDbMigrationCutTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "CREATE TABLE kairos_runs", // V1, its second table
        "CREATE SEQUENCE kairos_change_seq", // V2, in the middle
        "CREATE TABLE kairos_calendar_dates", // V7, its last statement
        "ADD COLUMN\n  kind" // V10, its only statement
      })
  void scriptCutAfterAStatement_theNextOpenCompletesTheSchema(String statement) throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create();
        MariaDbTestDatabase clean = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      try (AnswerDroppingProxy proxy = new AnswerDroppingProxy("127.0.0.1", 3306)) {
        proxy.dropAnswerTo(statement);
        try (JdbcStore cut = throughProxy(db, proxy)) {
          assertThatThrownBy(cut::open).isInstanceOf(StoreException.class);
        }
        assertThat(proxy.dropped).hasValue(1);
      }

      try (JdbcStore again = db.builder().build()) {
        again.open(); // threw before: the first thing the script makes already exists
      }
      try (JdbcStore fresh = clean.builder().build()) {
        fresh.open();
      }
      try (Connection a = db.connect();
          Connection b = clean.connect()) {
        assertThat(schema(a, db.name())).isEqualTo(schema(b, clean.name())).isNotEmpty();
        assertThat(history(a)).isEqualTo(history(b));
      }
    }
  }

  @Test
  void aTableOfTheApplicationsBearingTheName_isRefusedAndKept_untilMovedAway() throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      try (AnswerDroppingProxy proxy = new AnswerDroppingProxy("127.0.0.1", 3306)) {
        proxy.dropAnswerTo("CREATE TABLE kairos_calendars"); // V7 cut: unrecorded
        try (JdbcStore cut = throughProxy(db, proxy)) {
          assertThatThrownBy(cut::open).isInstanceOf(StoreException.class);
        }
      }
      try (Connection c = db.connect();
          Statement st = c.createStatement()) {
        // as if the application had made a table of that name, with rows
        st.execute(
            "INSERT INTO kairos_calendars (calendar_name, zone_id, monday, tuesday,"
                + " wednesday, thursday, friday, saturday, sunday, last_business_day) VALUES"
                + " ('mine', 'UTC', 1, 1, 1, 1, 1, 0, 0, 0)");
      }

      try (JdbcStore again = db.builder().build()) {
        assertThatThrownBy(again::open)
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("table kairos_calendars exists but is not one Kairos made")
            .hasMessageContaining("it holds rows");
      }
      try (Connection c = db.connect();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT calendar_name FROM kairos_calendars")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("mine");
        // the application moves its table away: the next open completes the schema
        st.execute("RENAME TABLE kairos_calendars TO app_calendars");
      }
      try (JdbcStore again = db.builder().build()) {
        again.open();
      }
      try (Connection c = db.connect();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM app_calendars")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
    }
  }

  private static JdbcStore throughProxy(MariaDbTestDatabase db, AnswerDroppingProxy proxy) {
    return JdbcStore.builder()
        .url("jdbc:mariadb://127.0.0.1:" + proxy.port() + "/" + db.name())
        .user(MariaDbTestDatabase.USER)
        .poolSize(2)
        .build();
  }

  /** Every column and index of the database's tables, Flyway's history aside. */
  private static List<String> schema(Connection c, String database) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement st = c.createStatement()) {
      try (ResultSet rs =
          st.executeQuery(
              "SELECT table_name, column_name, ordinal_position, column_type, is_nullable,"
                  + " column_default, collation_name FROM information_schema.columns WHERE"
                  + " table_schema = '"
                  + database
                  + "' AND table_name <> 'kairos_schema_history' ORDER BY table_name,"
                  + " ordinal_position")) {
        add(rs, rows);
      }
      try (ResultSet rs =
          st.executeQuery(
              "SELECT table_name, index_name, seq_in_index, column_name, non_unique FROM"
                  + " information_schema.statistics WHERE table_schema = '"
                  + database
                  + "' AND table_name <> 'kairos_schema_history' ORDER BY table_name, index_name,"
                  + " seq_in_index")) {
        add(rs, rows);
      }
      try (ResultSet rs =
          st.executeQuery(
              "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = '"
                  + database
                  + "' ORDER BY table_name")) {
        add(rs, rows);
      }
    }
    return rows;
  }

  private static List<String> history(Connection c) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT version, description, type, script, checksum, success FROM"
                    + " kairos_schema_history ORDER BY installed_rank")) {
      add(rs, rows);
    }
    return rows;
  }

  private static void add(ResultSet rs, List<String> rows) throws SQLException {
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      StringBuilder row = new StringBuilder();
      for (int i = 1; i <= n; i++) {
        row.append(rs.getString(i)).append('|');
      }
      rows.add(row.toString());
    }
  }
}
