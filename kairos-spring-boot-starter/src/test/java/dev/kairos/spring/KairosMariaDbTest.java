package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.Job;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.StoreSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
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
 * The starter on the application's MariaDB DataSource (127.0.0.1:3306, user root), in a database of
 * its own that is dropped afterwards: the schema is made, jobs fire through the application's pool,
 * and a schedule commits or rolls back with the caller's transaction. Skipped with a message when
 * the server is unreachable, unless the environment variable CI is set: then it fails.
 */
class KairosMariaDbTest {
  static final String SERVER = "jdbc:mariadb://127.0.0.1:3306/";
  static final String DATABASE =
      "kairos_spring_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  static String unreachable;

  @BeforeAll
  static void createDatabase() {
    try (Connection c = connect("");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + DATABASE);
    } catch (SQLException e) {
      unreachable = "MariaDB at 127.0.0.1:3306 (user root) is unreachable: " + e;
      if (System.getenv("CI") != null) {
        throw new AssertionError(
            unreachable + " (CI is set, so this fails instead of skipping)", e);
      }
    }
  }

  @AfterAll
  static void dropDatabase() throws SQLException {
    if (unreachable == null) {
      try (Connection c = connect("");
          Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + DATABASE);
      }
    }
  }

  private static Connection connect(String database) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "root");
    p.setProperty("connectTimeout", "3000");
    return DriverManager.getConnection(SERVER + database, p);
  }

  private static ApplicationContextRunner application(String prefix, AtomicInteger runs) {
    return application(prefix, (Job) ctx -> runs.incrementAndGet());
  }

  private static ApplicationContextRunner application(String prefix, Job export) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataSourceAutoConfiguration.class, KairosAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + SERVER + DATABASE,
            "spring.datasource.username=root",
            "kairos.store.table-prefix=" + prefix)
        .withBean("export", Job.class, () -> export);
  }

  @Test
  void applicationsPool_makesTheSchema_andJobsFire() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    AtomicInteger runs = new AtomicInteger();
    application("fire_", runs)
        .run(
            ctx -> {
              assertThat(ctx.getBean(StoreSource.class)).isInstanceOf(JdbcStore.class);
              Scheduler scheduler = ctx.getBean(Scheduler.class);
              scheduler.schedule(
                  JobSpec.named("often").handler("export").fixedRate(Duration.ofMillis(100)));
              await().atMost(Duration.ofSeconds(20)).until(() -> runs.get() >= 5);
              assertThat(scheduler.job("often").orElseThrow().runCount()).isPositive();
            });
  }

  /** See {@link LongTransactionScenario}; on InnoDB, whose lock waits last 50 s by default. */
  @Test
  void longTransactionChangingOneJob_othersKeepFiring() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    LongTransactionScenario.Recorder recorder = new LongTransactionScenario.Recorder();
    application("txlong_", recorder)
        .run(
            ctx ->
                LongTransactionScenario.run(
                    ctx.getBean(Scheduler.class), ctx.getBean(DataSource.class), recorder));
  }

  @Test
  void scheduleInsideTransactions_followsCommitAndRollback() {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
    application("tx_", new AtomicInteger())
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
                  });

              assertThat(jdbc.queryForList("select id from tx_orders", Integer.class))
                  .containsExactly(2);
              assertThat(scheduler.job("rolled")).isEmpty();
              assertThat(scheduler.job("kept")).isPresent();
            });
  }
}
