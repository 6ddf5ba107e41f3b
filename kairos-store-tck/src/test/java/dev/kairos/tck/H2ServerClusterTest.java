package dev.kairos.tck;

import dev.kairos.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Cluster mode with three child JVMs over an H2 TCP server (one of the two H2 set-ups cluster mode
 * accepts), started by this class on a free port over a database file of its own. The instances'
 * stores connect as user {@code STORE}, the test and the children's results pools as {@code SA}, so
 * {@link #kill} can abort the stores' sessions only.
 *
 * <p>Tagged {@code long}: not in the test command; CI runs it in a second one (README, "Two
 * commands"), as {@code PostgresClusterTest} runs the same scenarios in the first.
 */
@org.junit.jupiter.api.Tag("long")
class H2ServerClusterTest extends ClusterProcessContract {
  private static H2TcpServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = H2TcpServer.start();
    server.createAdmin("STORE");
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static String url() {
    return server.url();
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
        return server.connect();
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
    return server.abortSessionsOf("STORE");
  }
}
