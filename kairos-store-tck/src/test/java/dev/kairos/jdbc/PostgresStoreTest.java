package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.BusinessCalendar;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The store contract on PostgreSQL, in a schema of this class's own. */
class PostgresStoreTest extends JdbcStoreContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Test
  void of_usersDataSource_detectsPostgresAndIsNotClosed() {
    try (HikariDataSource ds = db.dataSource("kairos-of-test", 2)) {
      JdbcStore s = JdbcStore.builder().dataSource(ds).tablePrefix(nextPrefix()).build();
      s.open();
      assertThat(s.toString()).startsWith("JdbcStore[postgresql data source ");
      s.close();

      assertThat(ds.isClosed()).isFalse();
    }
  }

  /**
   * A URL whose {@code currentSchema} names a schema that does not exist fails {@code open()} at
   * once, in one sentence that says what to do, and creates nothing.
   */
  @Test
  void open_currentSchemaThatDoesNotExist_saysSoInOneSentence() {
    String missing = db.schema() + "_missing";
    JdbcStore s =
        JdbcStore.builder()
            .url(
                PostgresTestDatabase.SERVER
                    + (PostgresTestDatabase.SERVER.contains("?") ? "&" : "?")
                    + "currentSchema="
                    + missing)
            .user(PostgresTestDatabase.USER)
            .password(PostgresTestDatabase.PASSWORD)
            .tablePrefix(nextPrefix())
            .build();
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(s::open)
          .isInstanceOf(dev.kairos.StoreException.class)
          .hasMessageContaining("no schema to create them in")
          .hasMessageContaining("CREATE SCHEMA it first")
          .hasMessageNotContaining("Flyway"); // before, Flyway's: retried for 9 s, pages long
    } finally {
      s.close();
    }
  }

  @Test
  void toString_namesUrlAndPrefix() {
    JdbcStore s =
        JdbcStore.builder()
            .url(db.url() + "&password=secret")
            .user("postgres")
            .tablePrefix("k_")
            .build();

    assertThat(s.toString())
        .isEqualTo("JdbcStore[" + db.url() + "&password=***, prefix k_]")
        .doesNotContain("secret");
  }

  /**
   * On PostgreSQL an upsert locks its calendar's row shared (two bulk chunks run at once): it goes
   * through while another transaction holds that row {@code FOR SHARE}, as a racing upsert does,
   * and a delete of the calendar waits for that transaction.
   */
  @Test
  void upsertOnACalendar_whileAnotherUpsertHoldsItShared_goesThrough() throws Exception {
    String p = nextPrefix();
    JobStore s = db.builder().tablePrefix(p).build().jobStore();
    try (HikariDataSource ds = db.dataSource("kairos-share-test", 1)) {
      s.open();
      s.putCalendar("desk", BusinessCalendar.in(ZoneOffset.UTC).weekdays());
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        c.setAutoCommit(false);
        st.executeQuery(
                "SELECT calendar_name FROM "
                    + p
                    + "calendars WHERE calendar_name = 'desk' FOR SHARE")
            .close();

        JobRecord onDesk = JobRecord.fresh(spec("a").excluding("desk"), T0);
        CompletableFuture.supplyAsync(() -> s.upsert(onDesk)).get(10, TimeUnit.SECONDS); // no wait
        CompletableFuture<Object> deleteDesk =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return s.deleteCalendar("desk");
                  } catch (IllegalStateException e) {
                    return e;
                  }
                });
        org.awaitility.Awaitility.await() // the delete waits on the row's lock
            .atMost(java.time.Duration.ofSeconds(10))
            .until(() -> lockWaiters(p) == 1);
        assertThat(deleteDesk).isNotDone();
        c.rollback();
        assertThat(deleteDesk.get(10, TimeUnit.SECONDS))
            .isInstanceOf(IllegalStateException.class)
            .asString()
            .contains("'a'");
      }
      assertThat(s.find("a")).isPresent();
    } finally {
      s.close();
    }
  }

  /**
   * Sessions waiting on a lock while deleting a calendar of the tables with prefix p (the delete
   * locks the calendar's row first).
   */
  private static int lockWaiters(String p) throws java.sql.SQLException {
    try (Connection c = java.sql.DriverManager.getConnection(db.url(), "postgres", "");
        Statement st = c.createStatement();
        java.sql.ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE 'SELECT calendar_name FROM "
                    + p
                    + "calendars WHERE calendar_name = $1 FOR UPDATE'")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
