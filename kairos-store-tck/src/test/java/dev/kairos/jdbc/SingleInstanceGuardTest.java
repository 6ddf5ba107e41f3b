package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.StderrCapture;
import dev.kairos.tck.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two schedulers that are not clustered on one set of tables run every fire twice (measured before
 * this test: two such stores on PostgreSQL, 20 jobs at 100 ms for 4 s, ran 806 of 842 fires twice,
 * with no word in the log). The second store to open now says so at ERROR, as does a clustered
 * store opened beside one that is not; stores on other tables, and a store opened after the first
 * closed, say nothing.
 */
class SingleInstanceGuardTest {
  private static final String TWICE = "another scheduler that is not clustered uses tables";
  private static final String BESIDE_CLUSTER = "a scheduler that is not clustered uses tables";

  @ParameterizedTest
  @ValueSource(strings = {"postgres", "mariadb"})
  void secondPlainStoreOnTheSameTables_reportedAtError_othersSilent(String server)
      throws Exception {
    try (Db db = database(server)) {
      try (StderrCapture err = new StderrCapture()) {
        JdbcStore first = db.builder().tablePrefix("g_").build();
        first.open();
        JdbcStore otherTables = db.builder().tablePrefix("h_").build();
        otherTables.open();
        assertThat(err.lines(TWICE)).isZero();

        JdbcStore second = db.builder().tablePrefix("g_").build();
        second.open();
        assertThat(err.lines(TWICE + " g_*")).isEqualTo(1);

        JdbcStore clustered = db.builder().tablePrefix("g_").clustered(true).build();
        clustered.open();
        assertThat(err.lines(BESIDE_CLUSTER + " g_*")).isEqualTo(1);

        clustered.close();
        second.close();
        first.close();
        otherTables.close();
        JdbcStore afterwards = db.builder().tablePrefix("g_").build();
        afterwards.open();
        JdbcStore clusteredAfterwards = db.builder().tablePrefix("h_").clustered(true).build();
        clusteredAfterwards.open();
        clusteredAfterwards.close();
        afterwards.close();
        assertThat(err.lines(TWICE)).isEqualTo(1);
        assertThat(err.lines(BESIDE_CLUSTER)).isEqualTo(1);
      }
    }
  }

  /**
   * On a user's pool the lock's connection is borrowed for the store's life and handed back without
   * the lock: a store opened later over the same pool takes it again, silently.
   */
  @ParameterizedTest
  @ValueSource(strings = {"postgres", "mariadb"})
  void usersPool_lockGoesBackWithTheConnection(String server) throws Exception {
    try (Db db = database(server);
        StderrCapture err = new StderrCapture()) {
      HikariConfig c = new HikariConfig();
      c.setJdbcUrl(db.url());
      c.setUsername(
          server.equals("postgres") ? PostgresTestDatabase.USER : MariaDbTestDatabase.USER);
      c.setMaximumPoolSize(3);
      c.setMinimumIdle(3);
      try (HikariDataSource pool = new HikariDataSource(c)) {
        for (int i = 0; i < 3; i++) {
          JdbcStore s = JdbcStore.builder().dataSource(pool).tablePrefix("u_").build();
          s.open();
          s.close();
        }
        assertThat(err.lines(TWICE)).isZero();
        if (server.equals("mariadb")) { // the guard's session had its wait_timeout raised
          List<Connection> all = new ArrayList<>();
          try {
            for (int i = 0; i < 3; i++) {
              all.add(pool.getConnection());
            }
            for (Connection held : all) {
              try (Statement st = held.createStatement();
                  ResultSet rs =
                      st.executeQuery("SELECT @@SESSION.wait_timeout = @@GLOBAL.wait_timeout")) {
                rs.next();
                assertThat(rs.getBoolean(1)).as("the pool's session has its own again").isTrue();
              }
            }
          } finally {
            for (Connection held : all) {
              held.close();
            }
          }
        }
      }
    }
  }

  /** A test database of either server, with its URL and user, dropped on close. */
  private record Db(TestDatabase db, String url, String user, AutoCloseable drop)
      implements AutoCloseable {
    JdbcStore.Builder builder() {
      return db.builder();
    }

    @Override
    public void close() throws Exception {
      drop.close();
    }
  }

  private static Db database(String server) {
    if (server.equals("postgres")) {
      PostgresTestDatabase db = PostgresTestDatabase.create();
      db.assumeReachable();
      return new Db(db, db.url(), PostgresTestDatabase.USER, db);
    }
    MariaDbTestDatabase db = MariaDbTestDatabase.create();
    db.assumeReachable();
    return new Db(db, db.url(), MariaDbTestDatabase.USER, db);
  }
}
