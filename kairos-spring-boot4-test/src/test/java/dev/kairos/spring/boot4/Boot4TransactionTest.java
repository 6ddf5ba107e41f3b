package dev.kairos.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.Job;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.spring.KairosAutoConfiguration;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.SpringVersion;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** On Spring Boot 4 (Spring 7) too, a schedule commits or rolls back with the caller. */
class Boot4TransactionTest {

  @Test
  void scheduleInsideTransactions_followsCommitAndRollback() {
    assertThat(SpringVersion.getVersion()).startsWith("7.");
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:boot4tx;DB_CLOSE_DELAY=-1");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(KairosAutoConfiguration.class))
        .withBean("dataSource", DataSource.class, () -> ds)
        .withBean("export", Job.class, () -> ctx -> {})
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              Scheduler scheduler = ctx.getBean(Scheduler.class);
              JdbcTemplate jdbc = new JdbcTemplate(ds);
              jdbc.execute("create table orders (id int primary key)");
              TransactionTemplate tx =
                  new TransactionTemplate(new DataSourceTransactionManager(ds));
              Instant later = Instant.now().plus(Duration.ofMinutes(2));

              tx.executeWithoutResult(
                  status -> {
                    jdbc.update("insert into orders values (1)");
                    scheduler.schedule(JobSpec.named("rolled").handler("export").at(later));
                    status.setRollbackOnly();
                  });
              tx.executeWithoutResult(
                  status -> {
                    jdbc.update("insert into orders values (2)");
                    scheduler.schedule(JobSpec.named("kept").handler("export").at(later));
                    assertThat(scheduler.stats().queuedJobs()).isZero();
                  });

              assertThat(jdbc.queryForList("select id from orders", Integer.class))
                  .containsExactly(2);
              assertThat(scheduler.job("rolled")).isEmpty();
              assertThat(scheduler.job("kept")).isPresent();
              assertThat(scheduler.stats().queuedJobs()).isOne();
            });
  }
}
