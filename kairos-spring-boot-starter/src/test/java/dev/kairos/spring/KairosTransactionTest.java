package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import java.time.Duration;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Pins what the README says about transactions: {@code schedule(...)} commits on its own connection
 * and does not roll back with the caller's Spring transaction.
 */
class KairosTransactionTest {

  @Test
  void scheduleInsideARolledBackTransaction_staysScheduled_whileTheCallersInsertIsUndone() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:tx;DB_CLOSE_DELAY=-1");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(KairosAutoConfiguration.class))
        .withBean("dataSource", DataSource.class, () -> ds)
        .withBean("export", Reports.class)
        .run(
            ctx -> {
              Scheduler scheduler = ctx.getBean(Scheduler.class);
              JdbcTemplate jdbc = new JdbcTemplate(ds);
              jdbc.execute("create table orders (id int primary key)");
              TransactionTemplate tx =
                  new TransactionTemplate(new DataSourceTransactionManager(ds));

              tx.executeWithoutResult(
                  status -> {
                    jdbc.update("insert into orders values (1)");
                    scheduler.schedule(
                        JobSpec.named("order-1").handler("export.run").after(Duration.ofHours(1)));
                    status.setRollbackOnly();
                  });

              assertThat(jdbc.queryForObject("select count(*) from orders", Integer.class))
                  .isZero();
              assertThat(scheduler.job("order-1")).isPresent();
            });
  }

  /** A handler for the job. */
  static class Reports {
    @KairosScheduled(fixedRate = "1h")
    void run() {}
  }
}
