package dev.kairos.jdbc;

import static dev.kairos.tck.JobStoreContract.T0;
import static dev.kairos.tck.JobStoreContract.fresh;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.Upsert;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store's transactions run at READ COMMITTED on a user's pool whose connections have another
 * level, and each connection goes back to the pool at its own level. (A server whose sessions
 * default to another level: {@code PostgresRepeatableReadStoreTest}, {@code
 * PostgresSerializableClusterStoreTest}.)
 */
class IsolationLevelTest {
  @RegisterExtension static final PostgresTestDatabase pg = PostgresTestDatabase.create();
  private static MariaDbTestDatabase maria;

  @BeforeAll
  static void createMariaDb() {
    maria = MariaDbTestDatabase.create();
  }

  @AfterAll
  static void dropMariaDb() {
    if (maria != null) {
      maria.close();
    }
  }

  /**
   * Eight callers scheduling one new key at once, twenty times: one creates the job, the others
   * find it unchanged. At SERIALIZABLE the losers' inserts failed with serialization errors before.
   */
  @Test
  void postgresUserPoolAtSerializable_racingUpserts_oneCreatedTheOthersUnchanged()
      throws Exception {
    pg.assumeReachable();
    int callers = 8;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(pg.url());
    config.setUsername(PostgresTestDatabase.USER);
    config.setPassword(PostgresTestDatabase.PASSWORD);
    config.setMaximumPoolSize(callers);
    config.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
    try (HikariDataSource ds = new HikariDataSource(config)) {
      try (JdbcStore store =
          JdbcStore.builder().dataSource(ds).tablePrefix(JdbcStoreContract.nextPrefix()).build()) {
        store.open();
        raceUpserts(store.jobStore(), callers);
      }
    }
  }

  /**
   * The same race on the store's own pool over a server whose sessions default to SERIALIZABLE (an
   * administrator's {@code ALTER DATABASE … SET default_transaction_isolation}): the pool's
   * connections run at READ COMMITTED all the same. The whole store and cluster contracts run so in
   * {@code PostgresRepeatableReadStoreTest} and {@code PostgresSerializableClusterStoreTest}
   * (tagged {@code long}).
   */
  @Test
  void postgresServerDefaultSerializable_storesOwnPool_racingUpsertsAtReadCommitted()
      throws Exception {
    pg.assumeReachable();
    int callers = 8;
    try (JdbcStore store =
        pg.withDefaultIsolation("serializable")
            .builder()
            .poolSize(callers)
            .tablePrefix(JdbcStoreContract.nextPrefix())
            .build()) {
      store.open();
      raceUpserts(store.jobStore(), callers);
    }
  }

  /** Twenty rounds of {@code callers} threads scheduling one new key at once. */
  private static void raceUpserts(JobStore jobs, int callers) throws Exception {
    for (int round = 0; round < 20; round++) {
      String key = "race-" + round;
      CyclicBarrier start = new CyclicBarrier(callers);
      List<CompletableFuture<Upsert.Change>> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(
            CompletableFuture.supplyAsync(
                () -> {
                  await(start);
                  return jobs.upsert(fresh(key, T0)).change();
                },
                runnable -> new Thread(runnable).start()));
      }
      List<Upsert.Change> changes = new ArrayList<>();
      for (CompletableFuture<Upsert.Change> call : calls) {
        changes.add(call.get(30, TimeUnit.SECONDS));
      }
      assertThat(changes)
          .as("round %d", round)
          .containsOnlyOnce(Upsert.Change.CREATED)
          .containsOnly(Upsert.Change.CREATED, Upsert.Change.UNCHANGED);
    }
  }

  @Test
  void postgresPoolThatKeepsSessionState_connectionsGoBackAtTheirOwnLevel() throws Exception {
    pg.assumeReachable();
    try (KeepingPool pool = new KeepingPool(pg::connect, Connection.TRANSACTION_SERIALIZABLE)) {
      useAStore(pool);

      assertThat(pool.serverLevels("SHOW transaction_isolation")).containsOnly("serializable");
      assertThat(pool.autoCommits()).containsOnly(false);
    }
  }

  /**
   * Before, the store left READ COMMITTED behind on the application's connections (and its guard
   * left auto-commit on).
   */
  @Test
  void mariaDbPoolThatKeepsSessionState_connectionsGoBackAtTheirOwnLevel() throws Exception {
    maria.assumeReachable();
    try (KeepingPool pool =
        new KeepingPool(maria::connect, Connection.TRANSACTION_REPEATABLE_READ)) {
      useAStore(pool);

      assertThat(pool.serverLevels("SELECT @@tx_isolation")).containsOnly("REPEATABLE-READ");
      assertThat(pool.autoCommits()).containsOnly(false);
    }
  }

  /**
   * In cluster mode the PostgreSQL listener holds a connection of the pool for the store's life; at
   * close it goes back as it was lent (before, auto-commit stayed on).
   */
  @Test
  void postgresPoolThatKeepsSessionState_clusteredScheduler_listenerConnectionGoesBackAsLent()
      throws Exception {
    pg.assumeReachable();
    try (KeepingPool pool = new KeepingPool(pg::connect, Connection.TRANSACTION_SERIALIZABLE)) {
      Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
      String prefix = JdbcStoreContract.nextPrefix();
      JdbcStore store =
          JdbcStore.builder().dataSource(pool).tablePrefix(prefix).clustered(true).build();
      String listening =
          "SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'LISTEN \""
              + prefix
              + "changes\"'";
      try (Scheduler s =
          Kairos.builder()
              .store(store)
              .workers(2)
              .handler(
                  "h",
                  ctx ->
                      runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet())
              .build()) {
        for (String key : List.of("a", "b", "c")) {
          s.schedule(JobSpec.named(key).handler("h").fixedRate(Duration.ofMillis(50)));
        }
        s.start();
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    runs.size() == 3
                        && runs.values().stream().allMatch(n -> n.get() >= 3)
                        && ((Number) pg.row(listening).orElseThrow().get("n")).intValue() == 1);
      }

      assertThat(pool.serverLevels("SHOW transaction_isolation")).containsOnly("serializable");
      assertThat(pool.autoCommits()).containsOnly(false);
    }
  }

  /** Schedules, reads, changes and deletes a job through a store on {@code pool}. */
  private static void useAStore(DataSource pool) {
    try (JdbcStore store =
        JdbcStore.builder().dataSource(pool).tablePrefix(JdbcStoreContract.nextPrefix()).build()) {
      store.open();
      JobStore jobs = store.jobStore();
      assertThat(jobs.upsert(fresh("a", T0)).change()).isEqualTo(Upsert.Change.CREATED);
      assertThat(jobs.upsertAll(List.of(fresh("b", T0), fresh("c", T0)))).hasSize(2);
      assertThat(jobs.find("a")).isPresent();
      assertThat(jobs.delete("b")).isTrue();
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Opens a connection to the test's database. */
  private interface Connector {
    Connection connect() throws SQLException;
  }

  /**
   * A pool of two connections that hands each out again as it was returned, session settings
   * included (as simple pools do; HikariCP would reset them).
   */
  private static final class KeepingPool extends TestDataSource implements AutoCloseable {
    private final List<Connection> all = new ArrayList<>();
    private final BlockingQueue<Connection> idle = new ArrayBlockingQueue<>(2);

    KeepingPool(Connector connector, int level) throws SQLException {
      for (int i = 0; i < 2; i++) {
        Connection c = connector.connect();
        c.setTransactionIsolation(level);
        c.setAutoCommit(false); // as an application's pool may lend them
        all.add(c);
        idle.add(c);
      }
    }

    /** Each connection's auto-commit setting. */
    List<Boolean> autoCommits() throws SQLException {
      List<Boolean> modes = new ArrayList<>();
      for (Connection c : all) {
        modes.add(c.getAutoCommit());
      }
      return modes;
    }

    /** The level each connection's session reports to {@code query}. */
    List<String> serverLevels(String query) throws SQLException {
      List<String> levels = new ArrayList<>();
      for (Connection c : all) {
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery(query)) {
          rs.next();
          levels.add(rs.getString(1));
        }
      }
      return levels;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c;
      try {
        c = idle.poll(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted", e);
      }
      if (c == null) {
        throw new SQLException("no connection free within 10 s");
      }
      AtomicBoolean returned = new AtomicBoolean();
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                switch (method.getName()) {
                  case "close":
                    if (returned.compareAndSet(false, true)) {
                      idle.add(c);
                    }
                    return null;
                  case "isClosed":
                    return returned.get();
                  default:
                    try {
                      return method.invoke(c, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                }
              });
    }

    @Override
    public void close() throws SQLException {
      for (Connection c : all) {
        c.close();
      }
    }
  }
}
