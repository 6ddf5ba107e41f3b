package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.jdbc.internal.MySqlOnMariaDb;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.TestDatabase;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract with the MySQL dialect, through MySQL Connector/J, against the MariaDB server
 * (see {@link MySqlOnMariaDb}); plus what the MySQL dialect does its own way.
 *
 * <p>Tagged {@code long}: not in the test command (about a minute, the contract's second run on the
 * MariaDB server after {@code MariaDbStoreTest}'s); CI runs it in a second one (README, "Two
 * commands").
 */
@org.junit.jupiter.api.Tag("long")
class MySqlDialectOnMariaDbStoreTest extends JdbcStoreContract {
  private static MySqlOnMariaDb db;

  @BeforeAll
  static void createDatabase() {
    db = MySqlOnMariaDb.create();
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
  void open_connectorJUrl_usesTheMySqlDialectAndItsTables() {
    String p = nextPrefix();
    JdbcStore s = db.builder().tablePrefix(p).build();
    try {
      s.open();
      assertThat(s.toString()).startsWith("JdbcStore[mysql ");
      assertThat(db.row("SELECT COUNT(*) AS n FROM " + p + "change_stamps")).isPresent();
    } finally {
      s.close();
    }
  }

  /**
   * Every write stamps its row with a value of its own from the AUTO_INCREMENT counter, and each
   * counter row is deleted by the transaction that inserted it.
   */
  @Test
  void writes_stampRowsUniquely_andLeaveNoCounterRows() {
    String p = nextPrefix();
    JobStore s = db.builder().tablePrefix(p).build().jobStore();
    try {
      for (int i = 0; i < 5; i++) {
        s.upsert(fresh("job-" + i, T0.plusSeconds(i)));
      }
      s.upsert(fresh("job-0", T0.plusSeconds(60)));
      s.delete("job-1");
    } finally {
      s.close();
    }

    String jobs = p + "jobs";
    assertThat(
            db.row("SELECT COUNT(DISTINCT change_seq) AS d, COUNT(*) AS n FROM " + jobs)
                .orElseThrow())
        .containsEntry("d", 4L)
        .containsEntry("n", 4L);
    assertThat(
            db.row(
                    "SELECT COUNT(*) AS n FROM "
                        + p
                        + "deleted_jobs d JOIN "
                        + jobs
                        + " j ON j.change_seq = d.change_seq")
                .orElseThrow())
        .containsEntry("n", 0L);
    assertThat(db.row("SELECT COUNT(*) AS n FROM " + p + "change_stamps").orElseThrow())
        .containsEntry("n", 0L);
  }

  /** Keys compare exactly: the NO PAD binary collation of the executable comment MariaDB runs. */
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
