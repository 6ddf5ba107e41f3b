package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.tck.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A store outage: PostgreSQL terminates every connection of the store's pool while fixed-rate jobs
 * run. Firing resumes once the pool reconnects, every job keeps firing, and no worker thread dies.
 */
class PostgresOutageTest {
  private static final List<String> KEYS = List.of("tick-1", "tick-2", "tick-3");
  private static PostgresTestDatabase db;

  @BeforeAll
  static void createSchema() {
    db = PostgresTestDatabase.create();
  }

  @BeforeEach
  void requirePostgres() {
    db.assumeReachable();
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void backendsTerminated_whileJobsRun_firingResumesNoJobDroppedNoWorkerDies() throws Exception {
    String app = "kairos-outage-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    List<Thread> workers = new CopyOnWriteArrayList<>();
    ThreadFactory factory =
        r -> {
          Thread t = new Thread(r, "outage-worker-" + workers.size());
          workers.add(t);
          return t;
        };
    try (HikariDataSource ds = db.dataSource(app, 4);
        Scheduler scheduler =
            Kairos.builder()
                .store(JdbcStore.builder().dataSource(ds).tablePrefix("outage_").build())
                .workers(3)
                .threadFactory(factory)
                .gracePeriod(Duration.ofSeconds(2))
                .handler(
                    "tick",
                    ctx ->
                        runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet())
                .build()) {
      scheduler.start();
      for (String key : KEYS) {
        scheduler.schedule(JobSpec.named(key).handler("tick").fixedRate(Duration.ofMillis(200)));
      }
      awaitEachRanAtLeast(runs, Map.of(), 3);

      for (int outage = 0; outage < 2; outage++) {
        Map<String, Integer> before = snapshot(runs);
        assertThat(terminateBackends(app)).isPositive();
        awaitEachRanAtLeast(runs, before, 5);
      }

      assertThat(workers).hasSize(3).allMatch(Thread::isAlive);
      assertThat(scheduler.jobs()).extracting(JobInfo::key).containsExactlyElementsOf(KEYS);
    }
  }

  private static Map<String, Integer> snapshot(Map<String, AtomicInteger> runs) {
    Map<String, Integer> copy = new ConcurrentHashMap<>();
    runs.forEach((k, v) -> copy.put(k, v.get()));
    return copy;
  }

  private static void awaitEachRanAtLeast(
      Map<String, AtomicInteger> runs, Map<String, Integer> before, int more) {
    await()
        .atMost(Duration.ofSeconds(8))
        .until(
            () ->
                KEYS.stream()
                    .allMatch(
                        k ->
                            runs.getOrDefault(k, new AtomicInteger()).get()
                                >= before.getOrDefault(k, 0) + more));
  }

  /** Terminates the backends of connections with this application name; returns how many. */
  private static int terminateBackends(String applicationName) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    + " AND application_name = '"
                    + applicationName
                    + "'")) {
      int n = 0;
      while (rs.next()) {
        n += rs.getBoolean(1) ? 1 : 0;
      }
      return n;
    }
  }
}
