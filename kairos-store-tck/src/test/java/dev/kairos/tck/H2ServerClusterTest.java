package dev.kairos.tck;

import dev.kairos.jdbc.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Cluster mode with three child JVMs over an H2 TCP server (one of the two H2 set-ups cluster mode
 * accepts), started by this class on a free port over a database file of its own. The instances'
 * stores connect as user {@code STORE}, the test and the children's results pools as {@code SA}, so
 * {@link #kill} can abort the stores' sessions only.
 */
class H2ServerClusterTest extends ClusterProcessContract {
  private static Path base;
  private static Server server;

  @BeforeAll
  static void startServer() throws Exception {
    base = Files.createTempDirectory("kairos-h2-server");
    server = Server.createTcpServer("-tcpPort", "0", "-baseDir", base.toString(), "-ifNotExists");
    server.start();
    try (Connection c = DriverManager.getConnection(url(), "SA", "");
        Statement s = c.createStatement()) {
      s.execute("CREATE USER IF NOT EXISTS STORE PASSWORD '' ADMIN");
    }
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      try (Connection c = DriverManager.getConnection(url(), "SA", "");
          Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      } catch (SQLException e) {
        // H2 checks its own invariants on close with assertions, which tests enable; one of them
        // ("x != y" in MVStore.closeStore) fails now and then after aborted sessions. The
        // database is thrown away: not a failure of the scheduler under test.
        System.out.println("H2 server: SHUTDOWN failed: " + e);
      }
      server.stop();
    }
    if (base != null) {
      try (var files = Files.walk(base)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static String url() {
    // DB_CLOSE_DELAY=-1: the database stays open while the test aborts every store session
    return "jdbc:h2:tcp://localhost:"
        + server.getPort()
        + "/cluster;WRITE_DELAY=0;DB_CLOSE_DELAY=-1";
  }

  /** Left out here (see the class comment): not a test in this class. */
  @Override
  void oneInstanceClockFiveSecondsAhead_stillExactlyOnce_noGaps() {}

  /** Left out here (see the class comment): not a test in this class. */
  @Override
  void changesThroughOneInstance_reachTheOthersWithinASecond() {}

  @Override
  protected TestDatabase database() {
    return new TestDatabase() {
      @Override
      public JdbcStore.Builder builder() {
        return JdbcStore.builder().url(url()).user("SA");
      }

      @Override
      public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "SA", "");
      }
    };
  }

  @Override
  protected String storeUrl(String prefix) {
    return url();
  }

  @Override
  protected String storeUser(String prefix) {
    return "STORE";
  }

  @Override
  protected String resultsUrl(String prefix) {
    return url();
  }

  @Override
  protected String resultsUser() {
    return "SA";
  }

  @Override
  protected String nowSql() {
    return "CAST(CAST(DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00',"
        + " CURRENT_TIMESTAMP AT TIME ZONE 'UTC') AS NUMERIC(28,0)) * 0.000001 AS NUMERIC(28,9))";
  }

  @Override
  protected int kill(String prefix) {
    try (Connection c = DriverManager.getConnection(url(), "SA", "");
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT COUNT(*) FILTER (WHERE ABORT_SESSION(SESSION_ID))"
                    + " FROM INFORMATION_SCHEMA.SESSIONS WHERE USER_NAME = 'STORE'")) {
      r.next();
      return r.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException("aborting the stores' sessions", e);
    }
  }
}
