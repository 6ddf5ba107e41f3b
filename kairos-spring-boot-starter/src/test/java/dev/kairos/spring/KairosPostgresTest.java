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
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + SCHEMA);
    } catch (SQLException e) {
      unreachable =
          "PostgreSQL at 127.0.0.1:5432 (database test, user postgres) is unreachable: " + e;
      if (System.getenv("CI") != null) {
        throw new AssertionError(
            unreachable + " (CI is set, so this fails instead of skipping)", e);
      }
    }
  }

  @AfterAll
  static void dropSchema() throws SQLException {
    if (unreachable == null) {
      try (Connection c = connect();
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
      }
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
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataSourceAutoConfiguration.class, KairosAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + SERVER + "?currentSchema=" + SCHEMA,
            "spring.datasource.username=postgres",
            "kairos.store.table-prefix=tx_")
        .withBean("export", Job.class, () -> ctx -> {})
        .run(
            ctx -> {
              Scheduler scheduler = ctx.getBean(Scheduler.class);
              DataSource ds = ctx.getBean(DataSource.class);
              JdbcTemplate jdbc = new JdbcTemplate(ds);
              jdbc.execute("create table tx_orders (id int primary key)");
              TransactionTemplate tx =
                  new TransactionTemplate(new DataSourceTransactionManager(ds));
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
}
