package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A user's pool whose connections start with auto-commit off (HikariCP's {@code autoCommit=false},
 * common beside JPA): every write the store makes is committed, a single schedule, a bulk schedule
 * and a run's write-back alike. Before, the store took such a connection for one inside an open
 * transaction, never committed, and the pool rolled everything back when the connection returned:
 * nothing was stored, and no error said so.
 */
class AutoCommitOffPoolTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgres", "mariadb"})
  void poolWithAutoCommitOff_everyWriteCommitted(String server) throws Exception {
    switch (server) {
      case "h2" ->
          check(
              new H2TestDatabase(dir), JdbcStore.Builder.h2Url(dir.resolve("kairos")), null, null);
      case "postgres" -> {
        try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
          db.assumeReachable();
          check(db, db.url(), PostgresTestDatabase.USER, PostgresTestDatabase.PASSWORD);
        }
      }
      default -> {
        try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
          db.assumeReachable();
          check(db, db.url(), MariaDbTestDatabase.USER, null);
        }
      }
    }
  }

  private static void check(TestDatabase db, String url, String user, String password)
      throws Exception {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(4);
    c.setAutoCommit(false);
    c.setPoolName("auto-commit-off");
    CountDownLatch ran = new CountDownLatch(1);
    try (HikariDataSource pool = new HikariDataSource(c);
        JdbcStore store = JdbcStore.builder().dataSource(pool).build()) {
      Scheduler s = Kairos.builder().store(store).handler("h", ctx -> ran.countDown()).build();
      Instant later = Instant.now().plus(Duration.ofHours(1));
      s.schedule(JobSpec.named("due-now").handler("h").at(Instant.now()));
      s.scheduleAll(
          List.of(
              JobSpec.named("bulk-1").handler("h").at(later),
              JobSpec.named("bulk-2").handler("h").at(later),
              JobSpec.named("bulk-3").handler("h").at(later)));
      s.start();
      assertThat(ran.await(30, TimeUnit.SECONDS)).as("due-now ran").isTrue();
      s.close(); // waits for the write-back
    }

    assertThat(db.row("SELECT COUNT(*) AS n FROM kairos_jobs").orElseThrow().get("n"))
        .as("jobs stored")
        .hasToString("4");
    assertThat(
            db.row("SELECT COUNT(*) AS n FROM kairos_runs WHERE job_key = 'due-now'")
                .orElseThrow()
                .get("n"))
        .as("the run's history row, written with its write-back")
        .hasToString("1");
  }
}
