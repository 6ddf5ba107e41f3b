package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.StderrCapture;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A server that ends idle sessions: PostgreSQL's {@code idle_session_timeout} (off by default, set
 * by a DBA for a database or role), MariaDB's {@code wait_timeout} (8 hours by default). The store
 * keeps two connections for long without a statement: the single-instance guard's, which holds the
 * lock that makes a second scheduler on the same tables report itself, and, in cluster mode on
 * PostgreSQL, the change listener's. The server ended both: the guard's lock went silently (a
 * second scheduler then ran every fire twice without a word), and the listener was reopened, with a
 * WARN, every time. Now those connections turn the timeout off for their own session.
 *
 * <p>The tests wait, in real time, past a one-second timeout the server applies.
 */
class ServerIdleTimeoutTest {
  private static final String TWICE = "another scheduler that is not clustered uses tables";
  private static final long PAST_TIMEOUT_MS = 2_500;

  @Test
  void postgres_guardKeepsItsLock_listenerStaysOpen_pastTheServersIdleSessionTimeout()
      throws Exception {
    PostgresTestDatabase server = PostgresTestDatabase.create();
    server.assumeReachable();
    try (server;
        PostgresTestDatabase.OwnDatabase db = server.ownDatabase("kairos_idle_", "");
        StderrCapture log = new StderrCapture()) {
      try (Connection c =
              DriverManager.getConnection(
                  db.url(), PostgresTestDatabase.USER, PostgresTestDatabase.PASSWORD);
          Statement s = c.createStatement()) {
        s.execute("ALTER DATABASE " + db.name() + " SET idle_session_timeout = '1s'");
      }
      JdbcStore.Builder builder =
          JdbcStore.builder()
              .url(db.url())
              .user(PostgresTestDatabase.USER)
              .password(PostgresTestDatabase.PASSWORD);

      JdbcStore first = builder.build();
      first.open();
      Thread.sleep(PAST_TIMEOUT_MS);
      JdbcStore second = builder.build();
      second.open();
      assertThat(log.lines(TWICE)).as("the first store still holds the lock").isEqualTo(1);
      second.close();
      first.close();

      AtomicInteger runs = new AtomicInteger();
      try (Scheduler s =
          Kairos.builder()
              .store(builder.clustered(true).build())
              .handler("h", ctx -> runs.incrementAndGet())
              .build()) {
        s.schedule(JobSpec.named("tick").handler("h").fixedRate(Duration.ofMillis(200)));
        long started = System.nanoTime();
        s.start();
        // Past the timeout, and until the job has fired a few times (a slow machine's start may
        // take a good part of the 2.5 s).
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () ->
                    runs.get() > 5
                        && System.nanoTime() - started
                            >= TimeUnit.MILLISECONDS.toNanos(PAST_TIMEOUT_MS));
      }
      assertThat(runs.get()).isGreaterThan(5);
      assertThat(log.lines("the connection listening on channel"))
          .as("the listener was never reopened")
          .isZero();
    }
  }

  @Test
  void mariaDb_guardKeepsItsLock_pastTheServersWaitTimeout() throws Exception {
    try (MariaDbTestDatabase created = MariaDbTestDatabase.create();
        StderrCapture log = new StderrCapture()) {
      created.assumeReachable();
      MariaDbTestDatabase db = created.withSessionVariables("wait_timeout=1");

      JdbcStore first = db.builder().build();
      first.open();
      Thread.sleep(PAST_TIMEOUT_MS);
      JdbcStore second = db.builder().build();
      second.open();
      assertThat(log.lines(TWICE)).as("the first store still holds the lock").isEqualTo(1);
      second.close();
      first.close();
    }
  }
}
