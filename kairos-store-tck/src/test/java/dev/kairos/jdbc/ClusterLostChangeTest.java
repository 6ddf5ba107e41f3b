package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Cluster mode, a change the feed never delivers: two instances know a one-shot due in an hour;
 * then its row is moved to a due time in the past without a change stamp, as a transaction that
 * commits long after it stamped its row leaves it (the readers' cursors have moved past the stamp
 * by then). Before the overdue sweep ({@code ClusterSync}) neither instance ever queued the fire
 * again; now one of them runs it, once, within a few sweeps. Real time, generous bounds.
 */
class ClusterLostChangeTest {
  @Test
  void h2() throws Exception {
    String url = "jdbc:h2:mem:lost-change-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=30";
    check(
        new TestDatabase() {
          @Override
          public JdbcStore.Builder builder() {
            return JdbcStore.builder().url(url);
          }

          @Override
          public Connection connect() throws SQLException {
            return java.sql.DriverManager.getConnection(url);
          }
        },
        Duration.ofSeconds(2),
        ClusterLostChangeTest::moveWithoutStamp);
  }

  @Test
  void postgres() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      check(db, Duration.ofSeconds(2), ClusterLostChangeTest::moveWithoutStamp);
    }
  }

  /**
   * The way a change is really lost: its transaction stamps the row, then stays open while a later
   * change commits and settles and the readers move their cursors past both; then it commits.
   */
  @Test
  void postgres_stampCommittedAfterItSettled() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      check(
          db,
          SETTLE,
          (c, past, schedulers, runs) -> {
            c.setAutoCommit(false);
            try (PreparedStatement s =
                c.prepareStatement(
                    "UPDATE kairos_jobs SET next_fire_time = ?, due_time = ?, version = version + 1,"
                        + " change_seq = nextval('kairos_change_seq'), changed_at ="
                        + " CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS NUMERIC(28,9))"
                        + " WHERE job_key = 'moved'")) {
              s.setBigDecimal(1, past);
              s.setBigDecimal(2, past);
              assertThat(s.executeUpdate()).isEqualTo(1);
            }
            schedulers.get(1).schedule(JobSpec.named("later").handler("h").at(Instant.now()));
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.containsKey("later"));
            // Not a wait for a result: it lets the later stamp settle and both feeds read past it
            // (settle + two polls), so that the commit below comes too late for the feed.
            Thread.sleep(SETTLE.multipliedBy(5).toMillis());
            c.commit();
          });
    }
  }

  @Test
  void mariaDb() throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      check(db, Duration.ofSeconds(2), ClusterLostChangeTest::moveWithoutStamp);
    }
  }

  /** The feed's settle time in the test that commits a stamp late. */
  private static final Duration SETTLE = Duration.ofMillis(200);

  /** Moves the one-shot's row to {@code past}, so that the feed does not tell the instances. */
  interface Mover {
    void move(
        Connection c, BigDecimal past, List<Scheduler> schedulers, Map<String, AtomicInteger> runs)
        throws Exception;
  }

  private static void moveWithoutStamp(
      Connection c, BigDecimal past, List<Scheduler> schedulers, Map<String, AtomicInteger> runs)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE kairos_jobs SET next_fire_time = ?, due_time = ?, version = version + 1"
                + " WHERE job_key = 'moved'")) {
      s.setBigDecimal(1, past);
      s.setBigDecimal(2, past);
      assertThat(s.executeUpdate()).isEqualTo(1);
    }
  }

  private static void check(TestDatabase db, Duration settle, Mover mover) throws Exception {
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    List<Scheduler> schedulers = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        schedulers.add(
            Kairos.builder()
                .store(db.builder().clustered(true).changeSettle(settle).build())
                .instanceId("s" + i)
                .clusterLease(Duration.ofSeconds(3)) // a sweep every half second
                .handler(
                    "h",
                    ctx ->
                        runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet())
                .build());
      }
      schedulers.forEach(Scheduler::start);
      Instant inAnHour = Instant.now().plus(Duration.ofHours(1));
      schedulers.get(0).schedule(JobSpec.named("moved").handler("h").at(inAnHour));
      schedulers.get(0).schedule(JobSpec.named("marker").handler("h").at(Instant.now()));
      // Both instances have read the feed past the one-shot's creation once the marker has run.
      await().atMost(Duration.ofSeconds(30)).until(() -> runs.containsKey("marker"));

      BigDecimal past = BigDecimal.valueOf(Instant.now().minusSeconds(1).toEpochMilli(), 3);
      try (Connection c = db.connect()) {
        mover.move(c, past, schedulers, runs);
      }

      await().atMost(Duration.ofSeconds(60)).until(() -> runs.containsKey("moved"));
    } finally {
      schedulers.forEach(Scheduler::close);
    }
    assertThat(runs.get("moved")).as("runs of the moved one-shot").hasValue(1);
    assertThat(runs.get("marker")).as("runs of the marker").hasValue(1);
  }
}
