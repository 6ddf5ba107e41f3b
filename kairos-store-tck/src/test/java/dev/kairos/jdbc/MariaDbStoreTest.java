package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The store contract on MariaDB, in a database of this class's own, plus MariaDB's own traps. */
class MariaDbStoreTest extends JdbcStoreContract {
  private static MariaDbTestDatabase db;

  @BeforeAll
  static void createDatabase() {
    db = MariaDbTestDatabase.create();
  }

  @AfterAll
  static void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Test
  void of_usersDataSource_detectsMariaDbAndIsNotClosed() {
    try (HikariDataSource ds = db.dataSource("kairos-of-test", 2)) {
      JdbcStore s = JdbcStore.builder().dataSource(ds).tablePrefix(nextPrefix()).build();
      s.open();
      assertThat(s.toString()).startsWith("JdbcStore[mariadb data source ");
      s.close();

      assertThat(ds.isClosed()).isFalse();
    }
  }

  /**
   * Keys are compared exactly, as Java compares strings: MariaDB's default collation would make
   * "Job" and "job", or "job" and "job ", one primary key.
   */
  @Test
  void keys_differingInCaseOrTrailingSpace_areDistinctJobs() {
    store.upsert(fresh("job", T0));
    store.upsert(fresh("Job", T0));
    store.upsert(fresh("job ", T0));
    store.upsert(fresh("jöb \uD83D\uDE00", T0)); // 4-byte UTF-8: needs utf8mb4

    assertThat(store.findAll())
        .extracting(r -> r.key())
        .containsExactlyInAnyOrder("job", "Job", "job ", "jöb \uD83D\uDE00");
  }

  /** Instants keep their nanoseconds (DECIMAL(28,9), not DATETIME(6)). */
  @Test
  void dueTime_withNanoseconds_roundTripsExactly() {
    Instant due = Instant.parse("2026-01-05T02:00:00.123456789Z");
    store.upsert(fresh("nanos", due));

    assertThat(store.find("nanos").orElseThrow().dueTime()).isEqualTo(due);
  }
}
