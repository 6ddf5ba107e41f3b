package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Pins what the README says about transactions: on the application's DataSource, {@code
 * schedule(...)} (and the other changes) called inside a Spring transaction commits or rolls back
 * with the caller's data, and the scheduler's heap learns of the change only when it commits.
 */
class KairosTransactionTest {
  static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  /** A handler recording the jobs it ran. */
  static class Export implements Job {
    final List<String> ran = new CopyOnWriteArrayList<>();

    @Override
    public void run(JobContext context) {
      ran.add(context.key());
    }
  }

  private interface Body {
    void run(Scheduler scheduler, JdbcTemplate jdbc, TransactionTemplate tx, Export export);
  }

  private void withApp(String db, Body body) {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1");
    ManualClock clock = new ManualClock(T0);
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(KairosAutoConfiguration.class))
        .withBean("dataSource", DataSource.class, () -> ds)
        .withBean("export", Export.class)
        .withBean(KairosCustomizer.class, () -> b -> b.clock(clock))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              JdbcTemplate jdbc = new JdbcTemplate(ds);
              jdbc.execute("create table orders (id int primary key)");
              TransactionTemplate tx =
                  new TransactionTemplate(new DataSourceTransactionManager(ds));
              body.run(ctx.getBean(Scheduler.class), jdbc, tx, ctx.getBean(Export.class));
            });
  }

  @Test
  void scheduleInsideARolledBackTransaction_isUndoneWithTheCallersInsert_andNeverQueued() {
    withApp(
        "rollback",
        (scheduler, jdbc, tx, export) -> {
          tx.executeWithoutResult(
              status -> {
                jdbc.update("insert into orders values (1)");
                scheduler.schedule(JobSpec.named("order-1").handler("export").at(T0));
                assertThat(scheduler.stats().queuedJobs()).as("heap before commit").isZero();
                status.setRollbackOnly();
              });

          assertThat(jdbc.queryForObject("select count(*) from orders", Integer.class)).isZero();
          assertThat(scheduler.job("order-1")).isEmpty();
          assertThat(scheduler.stats().queuedJobs()).as("no stale heap entry").isZero();
          assertThat(scheduler.stats().runningJobs()).isZero();
          assertThat(export.ran).isEmpty();
        });
  }

  /** The job is due at once, yet is queued (and fires) only after the commit. */
  @Test
  void scheduleInsideACommittedTransaction_isStoredWithTheCallersInsert_andFiresAfterCommit() {
    withApp(
        "commit",
        (scheduler, jdbc, tx, export) -> {
          tx.executeWithoutResult(
              status -> {
                jdbc.update("insert into orders values (1)");
                scheduler.schedule(JobSpec.named("order-1").handler("export").at(T0));
                assertThat(scheduler.stats().queuedJobs()).as("heap before commit").isZero();
                assertThat(scheduler.stats().runningJobs()).isZero();
              });

          assertThat(jdbc.queryForObject("select count(*) from orders", Integer.class)).isOne();
          await().atMost(Duration.ofSeconds(10)).until(() -> export.ran.contains("order-1"));
          assertThat(export.ran).containsExactly("order-1");
        });
  }

  /** An unschedule rolled back leaves the job stored and queued as before. */
  @Test
  void unscheduleInsideARolledBackTransaction_keepsTheJobStoredAndQueued() {
    withApp(
        "unschedule",
        (scheduler, jdbc, tx, export) -> {
          scheduler.schedule(
              JobSpec.named("later").handler("export").at(T0.plus(Duration.ofMinutes(1))));
          assertThat(scheduler.stats().queuedJobs()).isOne();

          tx.executeWithoutResult(
              status -> {
                assertThat(scheduler.unschedule("later")).isTrue();
                status.setRollbackOnly();
              });

          assertThat(scheduler.job("later")).isPresent();
          assertThat(scheduler.stats().queuedJobs()).isOne();
        });
  }

  /** Outside a transaction nothing changes: the change reaches the heap at once. */
  @Test
  void scheduleOutsideATransaction_isQueuedAtOnce() {
    withApp(
        "plain",
        (scheduler, jdbc, tx, export) -> {
          scheduler.schedule(
              JobSpec.named("later").handler("export").at(T0.plus(Duration.ofMinutes(1))));
          assertThat(scheduler.stats().queuedJobs()).isOne();
        });
  }
}
