package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.Job;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.StoreSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter on the application's PostgreSQL DataSource (127.0.0.1:5432, database test, user
 * postgres), in a schema of its own that is dropped afterwards. Skipped with a message when the
 * server is unreachable, unless the environment variable CI is set: then it fails.
 */
class KairosPostgresTest {
  static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/test";
  static final String SCHEMA =
      "kairos_spring_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  static String unreachable;

  @BeforeAll
  static void createSchema() {
    unreachable = createSchemaOrExplain(SCHEMA);
  }

  @AfterAll
  static void dropSchema() throws SQLException {
    if (unreachable == null) {
      dropSchema(SCHEMA);
    }
  }

  /**
   * Creates a schema on the test server; returns null, or why the server is unreachable (then, if
   * the environment variable CI is set, fails instead).
   */
  static String createSchemaOrExplain(String schema) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
      return null;
    } catch (SQLException e) {
      String why =
          "PostgreSQL at 127.0.0.1:5432 (database test, user postgres) is unreachable: " + e;
      if (System.getenv("CI") != null) {
        throw new AssertionError(why + " (CI is set, so this fails instead of skipping)", e);
      }
      return why;
    }
  }

  /** Drops a schema {@link #createSchemaOrExplain} made, with everything in it. */
  static void dropSchema(String schema) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private static Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("connectTimeout", "3");
    return DriverManager.getConnection(SERVER, p);
  }

  @Test
  void applicationsPool_holdsTheJobs_andStaysOpenAfterTheSchedulerCloses() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataSourceAutoConfiguration.class, KairosAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + SERVER + "?currentSchema=" + SCHEMA,
            "spring.datasource.username=postgres")
        .withUserConfiguration(KairosAutoConfigurationTest.ReportsConfig.class)
        .run(
            ctx -> {
              assertThat(ctx.getBean(StoreSource.class)).isInstanceOf(JdbcStore.class);
              assertThat(ctx.getBean(Scheduler.class).job("purge")).isPresent();

              ctx.getBean(KairosLifecycle.class).stop(); // closes the scheduler and its store
              DataSource ds = ctx.getBean(DataSource.class);
              assertThat(((HikariDataSource) ds).isClosed()).isFalse();
              try (Connection c = ds.getConnection();
                  ResultSet rs =
                      c.createStatement()
                          .executeQuery("select job_key from kairos_jobs order by job_key")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("purge");
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("reports.nightly");
              }
            });
  }

  /** On PostgreSQL too, a schedule commits or rolls back with the caller's transaction. */
  @Test
  void scheduleInsideTransactions_followsCommitAndRollback() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    inTransactionContext(
        "tx_",
        (scheduler, jdbc, ds) -> {
          jdbc.execute("create table tx_orders (id int primary key)");
          TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
          Instant later = Instant.now().plus(Duration.ofMinutes(2));

          tx.executeWithoutResult(
              status -> {
                jdbc.update("insert into tx_orders values (1)");
                scheduler.schedule(JobSpec.named("rolled").handler("export").at(later));
                status.setRollbackOnly();
              });
          tx.executeWithoutResult(
              status -> {
                jdbc.update("insert into tx_orders values (2)");
                scheduler.schedule(JobSpec.named("kept").handler("export").at(later));
                assertThat(scheduler.stats().queuedJobs()).isZero();
              });

          assertThat(jdbc.queryForList("select id from tx_orders", Integer.class))
              .containsExactly(2);
          assertThat(scheduler.job("rolled")).isEmpty();
          assertThat(scheduler.job("kept")).isPresent();
          assertThat(scheduler.stats().queuedJobs()).isOne();
        });
  }

  /**
   * A bulk schedule of several chunks inside a transaction (where PostgreSQL would otherwise get
   * two chunks side by side on two connections) commits or rolls back with it, every chunk.
   */
  @Test
  void scheduleAllInsideTransactions_everyChunkFollowsCommitAndRollback() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    inTransactionContext(
        "txbulk_",
        (scheduler, jdbc, ds) -> {
          TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
          Instant later = Instant.now().plus(Duration.ofMinutes(2));
          List<JobSpec> rolled = new ArrayList<>();
          List<JobSpec> kept = new ArrayList<>();
          for (int i = 0; i < 2_500; i++) {
            rolled.add(JobSpec.named("rolled-" + i).handler("export").at(later));
            kept.add(JobSpec.named("kept-" + i).handler("export").at(later));
          }

          tx.executeWithoutResult(
              status -> {
                scheduler.scheduleAll(rolled);
                status.setRollbackOnly();
              });
          tx.executeWithoutResult(status -> scheduler.scheduleAll(kept));

          assertThat(jdbc.queryForObject("select count(*) from txbulk_jobs", Long.class))
              .isEqualTo(2_500L);
          assertThat(
                  jdbc.queryForObject(
                      "select count(*) from txbulk_jobs where job_key like 'kept-%'", Long.class))
              .isEqualTo(2_500L);
          assertThat(scheduler.stats().queuedJobs()).isEqualTo(2_500);
        });
  }

  /**
   * A bulk schedule inside a transaction of jobs some of which exist (the store first inserts a
   * chunk as new jobs, and a key that exists fails that insert): the transaction stays usable, the
   * application's own statement after it commits with it, and every job is stored once.
   */
  @Test
  void scheduleAllInsideTransaction_someJobsExist_transactionGoesOn() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    inTransactionContext(
        "txexist_",
        (scheduler, jdbc, ds) -> {
          TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
          Instant later = Instant.now().plus(Duration.ofMinutes(2));
          List<JobSpec> first = new ArrayList<>();
          List<JobSpec> again = new ArrayList<>();
          for (int i = 0; i < 1_500; i++) {
            JobSpec spec = JobSpec.named("job-" + i).handler("export").at(later);
            (i % 3 == 0 ? first : again).add(spec);
          }
          scheduler.scheduleAll(first); // outside any transaction
          List<JobSpec> all = new ArrayList<>(again);
          all.addAll(first);
          jdbc.execute("create table txexist_app (note varchar(20))");

          tx.executeWithoutResult(
              status -> {
                scheduler.scheduleAll(all);
                jdbc.update("insert into txexist_app values ('after')");
              });

          assertThat(jdbc.queryForObject("select count(*) from txexist_jobs", Long.class))
              .isEqualTo(1_500L);
          assertThat(jdbc.queryForObject("select count(*) from txexist_app", Long.class))
              .isEqualTo(1L);
          assertThat(scheduler.stats().queuedJobs()).isEqualTo(1_500);
        });
  }

  /**
   * A bulk schedule of new jobs inside a transaction takes no savepoints (each would stay a
   * subtransaction until the application commits; past 64 of them PostgreSQL slows every other
   * session): every row it inserts carries the transaction's own id, none a subtransaction's.
   */
  @Test
  void scheduleAllInsideTransaction_newJobs_noSubtransactions() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    inTransactionContext(
        "txnew_",
        (scheduler, jdbc, ds) -> {
          TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
          Instant later = Instant.now().plus(Duration.ofMinutes(2));
          List<JobSpec> specs = new ArrayList<>();
          for (int i = 0; i < 2_500; i++) {
            specs.add(JobSpec.named("job-" + i).handler("export").at(later));
          }
          scheduler.schedule(JobSpec.named("outside").handler("export").at(later)); // the table

          long[] rows = new long[2];
          tx.executeWithoutResult(
              status -> {
                long top = jdbc.queryForObject("select txid_current() % 4294967296", Long.class);
                scheduler.scheduleAll(specs);
                rows[0] =
                    jdbc.queryForObject(
                        "select count(*) from txnew_jobs where xmin::text::bigint = ?",
                        Long.class,
                        top);
                rows[1] =
                    jdbc.queryForObject(
                        "select count(*) from txnew_jobs where job_key <> 'outside'", Long.class);
              });

          assertThat(rows[1]).isEqualTo(2_500L);
          assertThat(rows[0]).as("rows written by the transaction itself").isEqualTo(2_500L);
          assertThat(jdbc.queryForObject("select count(*) from txnew_jobs", Long.class))
              .isEqualTo(2_501L);
          assertThat(scheduler.stats().queuedJobs()).isEqualTo(2_501);
        });
  }

  /**
   * The application's pool hands out connections with auto-commit off ({@code
   * spring.datasource.hikari.auto-commit=false}, common beside JPA): a schedule outside any
   * transaction is committed by the store, and one inside a transaction that rolls back leaves no
   * trace. Before, the store took every such connection for the caller's transaction and stored
   * nothing.
   */
  @Test
  void poolWithAutoCommitOff_outsideATransactionCommitted_insideJoinsIt() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    inTransactionContext(
        "acoff_",
        (scheduler, jdbc, ds) -> {
          TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
          Instant later = Instant.now().plus(Duration.ofMinutes(2));
          scheduler.schedule(JobSpec.named("outside").handler("export").at(later));
          scheduler.scheduleAll(
              List.of(
                  JobSpec.named("bulk-1").handler("export").at(later),
                  JobSpec.named("bulk-2").handler("export").at(later)));
          tx.executeWithoutResult(
              status -> {
                scheduler.schedule(JobSpec.named("rolled-back").handler("export").at(later));
                status.setRollbackOnly();
              });

          try (Connection c = DriverManager.getConnection(SERVER, "postgres", "");
              Statement st = c.createStatement();
              ResultSet rs =
                  st.executeQuery("select job_key from " + SCHEMA + ".acoff_jobs order by 1")) {
            List<String> keys = new ArrayList<>();
            while (rs.next()) {
              keys.add(rs.getString(1));
            }
            assertThat(keys).containsExactly("bulk-1", "bulk-2", "outside");
          }
          assertThat(scheduler.stats().queuedJobs()).isEqualTo(3);
        },
        "spring.datasource.hikari.auto-commit=false");
  }

  /** See {@link LongTransactionScenario}. */
  @Test
  void longTransactionChangingOneJob_othersKeepFiring() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    inTransactionContext(
        "txlong_", (scheduler, jdbc, ds) -> LongTransactionScenario.run(scheduler, ds, RECORDER));
  }

  /** Records the runs of the handler "export". */
  private static final LongTransactionScenario.Recorder RECORDER =
      new LongTransactionScenario.Recorder();

  /**
   * A test body given the context's scheduler, a template on its DataSource, and the DataSource.
   */
  @FunctionalInterface
  private interface InContext {
    void run(Scheduler scheduler, JdbcTemplate jdbc, DataSource ds) throws Exception;
  }

  /**
   * Runs {@code test} in a Spring Boot context on this class's schema: the auto-configured
   * DataSource, Kairos on it with tables prefixed {@code prefix}, and a job handler "export".
   */
  private static void inTransactionContext(String prefix, InContext test, String... properties) {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataSourceAutoConfiguration.class, KairosAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + SERVER + "?currentSchema=" + SCHEMA,
            "spring.datasource.username=postgres",
            "kairos.store.table-prefix=" + prefix)
        .withPropertyValues(properties)
        .withBean("export", Job.class, () -> RECORDER)
        .run(
            ctx -> {
              DataSource ds = ctx.getBean(DataSource.class);
              test.run(ctx.getBean(Scheduler.class), new JdbcTemplate(ds), ds);
            });
  }
}
