package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kairos.tck.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A transaction of the store's own PostgreSQL pool left idle (its process frozen mid-transaction)
 * is ended by the server after 2 s, which frees the row locks it held: another instance's claim of
 * that row then waits 2 s at most, not as long as the freeze.
 */
class PostgresIdleTransactionTest {
  private static PostgresTestDatabase db;

  @BeforeAll
  static void createSchema() {
    db = PostgresTestDatabase.create();
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void poolFromUrl_idleTransactionEnded_itsRowLockFreed() throws Exception {
    db.assumeReachable();
    ConnectionSource source =
        ConnectionSource.pool(db.url(), PostgresTestDatabase.USER, null, 2, "test");
    try {
      DataSource ds = source.open();
      try (Connection setup = db.connect();
          Statement st = setup.createStatement()) {
        st.execute("CREATE TABLE locked (id INT PRIMARY KEY, v INT)");
        st.execute("INSERT INTO locked VALUES (1, 0)");
      }
      Connection frozen = ds.getConnection();
      assertThat(setting(frozen)).isEqualTo("2s");
      frozen.setAutoCommit(false);
      try (Statement st = frozen.createStatement()) {
        st.executeUpdate("UPDATE locked SET v = 1 WHERE id = 1"); // holds the row lock
      }
      long begin = System.nanoTime();
      // Another session's update of the row waits for the lock, then goes through once the
      // server has ended the idle transaction (which rolls back).
      try (Connection other = db.connect();
          Statement st = other.createStatement()) {
        st.execute("SET lock_timeout = 20000");
        assertThat(st.executeUpdate("UPDATE locked SET v = 2 WHERE id = 1")).isOne();
      }
      Duration waited = Duration.ofNanos(System.nanoTime() - begin);
      assertThat(waited).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(15));
      assertThatThrownBy(
              () -> {
                try (Statement st = frozen.createStatement()) {
                  st.executeQuery("SELECT 1");
                }
              })
          .isInstanceOf(SQLException.class);
      frozen.close(); // back to the pool, which drops it as broken
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                try (Connection c = ds.getConnection()) {
                  assertThat(setting(c)).isEqualTo("2s");
                }
              });
    } finally {
      source.close();
    }
  }

  @Test
  void plainDataSourcePooledByTheStore_getsTheTimeoutToo() throws Exception {
    db.assumeReachable();
    PGSimpleDataSource plain = new PGSimpleDataSource();
    plain.setURL(db.url());
    plain.setUser(PostgresTestDatabase.USER);
    ConnectionSource source = ConnectionSource.of(plain, 2);
    try (Connection c = source.open().getConnection()) {
      assertThat(setting(c)).isEqualTo("2s");
    } finally {
      source.close();
    }
  }

  private static String setting(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW idle_in_transaction_session_timeout")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
