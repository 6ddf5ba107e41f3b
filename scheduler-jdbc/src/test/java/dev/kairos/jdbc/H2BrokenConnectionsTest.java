package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.StoreException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A session H2 closed under the store (an aborted session, as an H2 server's restart leaves every
 * connection) costs at most one failed call per pooled connection: the store's pool evicts it on
 * H2's error instead of handing it out again. Before, HikariCP kept such a connection (H2's
 * SQLSTATEs are not of class 08), and calls made back to back failed on it without end.
 */
class H2BrokenConnectionsTest {
  static final int POOL = 3;

  @Test
  void abortedSessions_areEvicted_andTheStoreAnswersAgain() throws SQLException {
    String url = "jdbc:h2:mem:broken" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    try (JdbcStore store = JdbcStore.builder().url(url).poolSize(POOL).build();
        Connection admin = DriverManager.getConnection(url);
        Statement s = admin.createStatement()) {
      store.open();
      for (int i = 0; i < 2 * POOL; i++) {
        store.jobStore().find("nightly"); // every pooled connection used
      }
      int aborted;
      try (ResultSet r =
          s.executeQuery(
              "SELECT COUNT(*) FILTER (WHERE ABORT_SESSION(SESSION_ID))"
                  + " FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID()")) {
        r.next();
        aborted = r.getInt(1);
      }
      assertThat(aborted).as("the store's sessions").isPositive();

      int failed = 0;
      for (int i = 0; i < 4 * POOL; i++) { // back to back: no idle check on borrowing
        try {
          store.jobStore().find("nightly");
        } catch (StoreException e) {
          failed++;
        }
      }

      assertThat(failed).as("calls failed on a dead connection").isLessThanOrEqualTo(POOL);
      assertThat(store.jobStore().find("nightly")).isEmpty();
      s.execute("SHUTDOWN");
    }
  }
}
