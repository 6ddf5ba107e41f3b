package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A scheduler on a user's pool of a single connection keeps running its jobs while the application
 * changes them: no store call waits for a second connection while holding the first.
 */
class PoolOfOneConnectionTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgres", "postgres-clustered", "mariadb"})
  void poolOfOneConnection_jobsRunAndApiCallsReturn(String server) throws Exception {
    switch (server) {
      case "h2" -> run(JdbcStore.Builder.h2Url(dir.resolve("kairos")), null, false);
      case "mariadb" -> {
        try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
          db.assumeReachable();
          run(db.url(), MariaDbTestDatabase.USER, false);
        }
      }
      default -> {
        try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
          db.assumeReachable();
          run(db.url(), PostgresTestDatabase.USER, server.endsWith("clustered"));
        }
      }
    }
  }

  private static void run(String url, String user, boolean clustered) throws Exception {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setMaximumPoolSize(1);
    c.setConnectionTimeout(5_000); // a store call waiting for a second connection fails in 5 s
    c.setPoolName("one-connection");
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    List<Throwable> failures = new ArrayList<>();
    try (HikariDataSource pool = new HikariDataSource(c);
        JdbcStore store = JdbcStore.builder().dataSource(pool).clustered(clustered).build()) {
      Scheduler s =
          Kairos.builder()
              .store(store)
              .workers(4)
              .handler(
                  "h",
                  ctx ->
                      runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet())
              .build();
      List<JobSpec> specs = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        specs.add(JobSpec.named("job-" + i).handler("h").fixedRate(Duration.ofMillis(100)));
      }
      s.scheduleAll(specs);
      s.start();
      Instant until = Instant.now().plusSeconds(4);
      for (int round = 0; Instant.now().isBefore(until); round++) {
        String key = "job-" + (round % 20);
        try {
          s.pause(key);
          s.resume(key);
          s.triggerNow(key);
          s.schedule(JobSpec.named("extra-" + round).handler("h").at(Instant.now()));
        } catch (RuntimeException e) {
          failures.add(e);
        }
      }
      s.close();
    }
    assertThat(failures).isEmpty();
    for (int i = 0; i < 20; i++) {
      assertThat(runs.get("job-" + i)).as("job-%d ran", i).isNotNull().hasValueGreaterThan(10);
    }
  }
}
