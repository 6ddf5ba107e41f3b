package dev.kairos.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.CustomTask;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;

/**
 * db-scheduler 16.7 over a {@link Store}. Its jar ships no DDL, so the documented {@code
 * scheduled_tasks} table is embedded here as {@code db-scheduler/<dialect>.sql}.
 *
 * <p>Settings: {@code workers} threads; polling every {@code pollInterval} (its default is 10 s);
 * immediate execution on; on PostgreSQL lock-and-fetch polling ({@code pollUsingLockAndFetch(0.5,
 * 1.0)}, one {@code UPDATE ... FOR UPDATE SKIP LOCKED ... RETURNING}); on H2 and MariaDB, which it
 * has no lock-and-fetch support for, its default fetch-and-lock-on-execute polling (0.5, 3.0). On
 * MariaDB, timestamps in UTC ({@code alwaysPersistTimestampInUTC()}, its advice for MySQL and
 * MariaDB, whose TIMESTAMP keeps no zone). A HikariCP pool of {@code workers + 2} connections per
 * instance.
 *
 * <p>One-shot jobs are a one-time task. Fixed-rate jobs are a custom task whose completion handler
 * reschedules the instance at its own execution time plus the period (in its data), which is the
 * fixed-rate contract; db-scheduler's built-in {@code FixedDelay} measures from completion.
 */
final class DbSchedulerAdapter implements Adapter {
  private final Store store;
  private final int workers;
  private final Duration pollInterval;

  DbSchedulerAdapter(Store store, int workers, Duration pollInterval) {
    this.store = store;
    this.workers = workers;
    this.pollInterval = pollInterval;
    store.runScript(Store.resource("db-scheduler/" + store.dialect() + ".sql"));
  }

  @Override
  public Instance instance(Probe probe) {
    OneTimeTask<Void> once =
        Tasks.oneTime("once").execute((inst, ctx) -> probe.fired(ctx.getExecution().executionTime));
    CustomTask<Long> rate =
        Tasks.custom("rate", Long.class)
            .execute(
                (inst, ctx) -> {
                  Instant scheduled = ctx.getExecution().executionTime;
                  probe.fired(scheduled);
                  return (CompletionHandler<Long>)
                      (complete, ops) ->
                          ops.reschedule(complete, scheduled.plusMillis(inst.getData()));
                });
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(store.url());
    pool.setUsername(store.user());
    pool.setPassword(store.password());
    pool.setMaximumPoolSize(workers + 2);
    HikariDataSource ds = new HikariDataSource(pool);
    SchedulerBuilder b =
        Scheduler.create(Counting.enabled() ? Counting.wrap(ds) : ds, once, rate)
            .threads(workers)
            .pollingInterval(pollInterval)
            .enableImmediateExecution()
            .schedulerName(new SchedulerName.Fixed("kairos-bench"))
            .shutdownMaxWait(Duration.ofSeconds(5));
    switch (store.dialect()) {
      case "postgres" -> b.pollUsingLockAndFetch(0.5, 1.0);
      case "mariadb" -> b.alwaysPersistTimestampInUTC();
      default -> {}
    }
    Scheduler scheduler = b.build();
    return new Instance() {
      @Override
      public void oneShot(String key, Instant due) {
        scheduler.schedule(once.instance(key), due);
      }

      @Override
      public void fixedRate(String key, Instant first, Duration period) {
        scheduler.schedule(new TaskInstance<>("rate", key, period.toMillis()), first);
      }

      @Override
      public void start() {
        scheduler.start();
      }

      @Override
      public void close() {
        scheduler.stop();
        ds.close();
      }
    };
  }

  @Override
  public void close() {
    store.close();
  }
}
