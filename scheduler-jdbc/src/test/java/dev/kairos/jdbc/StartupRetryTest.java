package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.StoreException;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code start()} while the database does not answer yet (issue #10, item 8): it retries with
 * backoff up to the startup timeout, then fails naming the store and the last failure.
 */
class StartupRetryTest {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");

  @TempDir Path dir;

  /** An H2 data source whose first {@code failures} connections are refused. */
  DataSource failingFirst(int failures, AtomicInteger attempts) {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL(JdbcStore.Builder.h2Url(dir.resolve("kairos")));
    return (DataSource)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")
                  && attempts.incrementAndGet() <= failures) {
                throw new SQLTransientConnectionException(
                    "the database system is starting up", "57P03");
              }
              try {
                return method.invoke(h2, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void start_whileFirstConnectionsFail_retriesAndFires() {
    AtomicInteger attempts = new AtomicInteger();
    List<Instant> runs = new CopyOnWriteArrayList<>();
    ManualClock clock = new ManualClock(T0);
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(JdbcStore.of(failingFirst(3, attempts)))
                .clock(clock)
                .startupTimeout(Duration.ofSeconds(30))
                .handler("h", ctx -> runs.add(ctx.scheduledFireTime())));
    try {
      s.start();

      assertThat(attempts.get()).isGreaterThan(3);
      s.schedule(JobSpec.named("a").handler("h").at(T0.plusSeconds(60)));
      clock.set(T0.plusSeconds(60));
      await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == 1);
      assertThat(runs).containsExactly(T0.plusSeconds(60));
    } finally {
      s.close();
    }
  }

  @Test
  void start_databaseNeverAnswers_failsAfterStartupTimeout_namingStoreAndCause() {
    AtomicInteger attempts = new AtomicInteger();
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(JdbcStore.of(failingFirst(Integer.MAX_VALUE, attempts)))
                .startupTimeout(Duration.ofMillis(700))
                .handler("h", ctx -> {}));
    long start = System.nanoTime();
    try {
      assertThatThrownBy(s::start)
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("did not open within the startup timeout of PT0.7S")
          .hasMessageContaining("attempt(s)); last failure: opening data source")
          .hasMessageContaining("the database system is starting up")
          .hasRootCauseInstanceOf(SQLException.class)
          .hasRootCauseMessage("the database system is starting up");
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(millis).isBetween(300L, 15_000L);
      assertThat(attempts.get()).isBetween(2, 10);
    } finally {
      s.close();
    }
  }

  /** A URL nobody listens at: the same clear failure, without waiting for TCP timeouts. */
  @Test
  void start_unreachablePort_failsAfterStartupTimeout() {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(
                    JdbcStore.builder()
                        .url("jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2")
                        .user("postgres")
                        .build())
                .startupTimeout(Duration.ofMillis(500))
                .handler("h", ctx -> {}));
    try {
      assertThatThrownBy(s::start)
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("jdbc:postgresql://127.0.0.1:1/test")
          .hasMessageContaining("did not open within the startup timeout of PT0.5S");
    } finally {
      s.close();
    }
  }

  @Test
  void startupTimeout_negative_refused() {
    assertThatThrownBy(() -> Kairos.builder().startupTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("startup timeout must not be negative: PT-1S");
  }

  /**
   * A store that cannot open as set up (here no driver accepts its URL) fails {@code start()} at
   * the first attempt, with the store's own message, instead of retrying until the startup timeout.
   */
  @Test
  void start_withNoDriverForTheUrl_failsAtOnce_notAfterTheStartupTimeout() {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(JdbcStore.builder().url("jdbc:mysql://127.0.0.1:1/app").build())
                .startupTimeout(Duration.ofMinutes(10))
                .handler("h", ctx -> {}));
    try {
      long t0 = System.nanoTime();
      assertThatThrownBy(s::start)
          .isInstanceOf(dev.kairos.StoreSetupException.class)
          .hasMessageContaining("no JDBC driver for jdbc:mysql://127.0.0.1:1/app")
          .hasMessageNotContaining("startup timeout");
      // Retrying would have taken the whole ten minutes.
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMinutes(1));
    } finally {
      s.close();
    }
  }
}
