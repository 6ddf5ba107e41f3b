package dev.kairos.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Properties;
import java.util.UUID;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;

/**
 * Quartz 2.5 with RAMJobStore, or JobStoreTX over a {@link Store} whose tables are created from the
 * DDL script in Quartz's own jar ({@code tables_h2.sql}, {@code tables_postgres.sql}, {@code
 * tables_mysql_innodb.sql}); {@code PostgreSQLDelegate} on PostgreSQL, {@code StdJDBCDelegate}
 * elsewhere. Settings: a thread pool of {@code workers}; trigger acquisition batches of up to
 * {@code workers} triggers (Quartz's advice: no more than the pool), no fire-ahead window; misfire
 * threshold 60 s (the default); HikariCP pool of {@code workers + 2} connections; not clustered.
 * Jobs and triggers are default SimpleTriggers (one-shot, or repeat forever at the period), one
 * JobDetail per job.
 */
final class QuartzAdapter implements Adapter {
  /** How long {@code close()} waits for Quartz to shut down before leaving it behind. */
  private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(30);

  private final Store store;
  private final int workers;

  /**
   * The scheduler name, shared by this adapter's instances (a JDBC store keys its rows by it) and
   * by no other adapter's, so a scheduler left behind by a hung shutdown is never looked up again.
   */
  private final String name = "kairos-bench-" + UUID.randomUUID().toString().substring(0, 8);

  /**
   * @param store the database of JobStoreTX, or null for RAMJobStore
   */
  QuartzAdapter(Store store, int workers) {
    this.store = store;
    this.workers = workers;
    if (store != null) {
      store.runScript(Store.resource("org/quartz/impl/jdbcjobstore/" + script(store.dialect())));
    }
  }

  @Override
  public Instance instance(Probe probe) throws SchedulerException {
    Scheduler scheduler = new StdSchedulerFactory(properties()).getScheduler();
    Job job = (JobExecutionContext ctx) -> probe.fired(ctx.getScheduledFireTime().toInstant());
    scheduler.setJobFactory((bundle, s) -> job);
    return new Instance() {
      @Override
      public void oneShot(String key, Instant due) throws SchedulerException {
        scheduler.scheduleJob(
            detail(key),
            TriggerBuilder.newTrigger().withIdentity(key).startAt(Date.from(due)).build());
      }

      @Override
      public void fixedRate(String key, Instant first, Duration period) throws SchedulerException {
        Trigger trigger =
            TriggerBuilder.newTrigger()
                .withIdentity(key)
                .startAt(Date.from(first))
                .withSchedule(
                    SimpleScheduleBuilder.simpleSchedule()
                        .withIntervalInMilliseconds(period.toMillis())
                        .repeatForever())
                .build();
        scheduler.scheduleJob(detail(key), trigger);
      }

      @Override
      public void start() throws SchedulerException {
        scheduler.start();
      }

      @Override
      public void close() {
        shutdown(scheduler);
      }
    };
  }

  /**
   * Shuts Quartz down, waiting for running jobs, but at most {@link #SHUTDOWN_WAIT}. On H2, Quartz
   * can interrupt its scheduler thread during a commit; H2 then closes the database (a {@code
   * ClosedByInterruptException} on its file channel) and Quartz's workers retry their write-back
   * every 15 s for ever, so {@code shutdown(true)} never returns. Such a scheduler is left behind.
   */
  private static void shutdown(Scheduler scheduler) {
    Thread t =
        new Thread(
            () -> {
              try {
                scheduler.shutdown(true);
              } catch (SchedulerException e) {
                System.err.println("Quartz shutdown failed: " + e);
              }
            },
            "quartz-shutdown");
    t.setDaemon(true);
    t.start();
    try {
      t.join(SHUTDOWN_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      System.err.println("Quartz did not shut down within " + SHUTDOWN_WAIT + "; left behind");
    }
  }

  private static JobDetail detail(String key) {
    return JobBuilder.newJob(NoJob.class).withIdentity(key).build();
  }

  private Properties properties() {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", name);
    p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(workers));
    p.setProperty(
        "org.quartz.scheduler.batchTriggerAcquisitionMaxCount", Integer.toString(workers));
    p.setProperty("org.quartz.jobStore.misfireThreshold", "60000");
    if (store == null) {
      p.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
      return p;
    }
    p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
    p.setProperty(
        "org.quartz.jobStore.driverDelegateClass",
        store.dialect().equals("postgres")
            ? "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate"
            : "org.quartz.impl.jdbcjobstore.StdJDBCDelegate");
    p.setProperty("org.quartz.jobStore.dataSource", "ds");
    p.setProperty("org.quartz.jobStore.isClustered", "false");
    p.setProperty("org.quartz.dataSource.ds.provider", "hikaricp");
    p.setProperty("org.quartz.dataSource.ds.driver", driver(store.dialect()));
    p.setProperty("org.quartz.dataSource.ds.URL", store.url());
    p.setProperty("org.quartz.dataSource.ds.user", store.user());
    p.setProperty("org.quartz.dataSource.ds.password", store.password());
    p.setProperty("org.quartz.dataSource.ds.maxConnections", Integer.toString(workers + 2));
    return p;
  }

  /** The DDL script in Quartz's jar for {@code dialect}. */
  private static String script(String dialect) {
    return switch (dialect) {
      case "h2" -> "tables_h2.sql";
      case "postgres" -> "tables_postgres.sql";
      case "mariadb" -> "tables_mysql_innodb.sql";
      default -> throw new IllegalArgumentException("no Quartz tables for " + dialect);
    };
  }

  private static String driver(String dialect) {
    return switch (dialect) {
      case "h2" -> "org.h2.Driver";
      case "postgres" -> "org.postgresql.Driver";
      case "mariadb" -> "org.mariadb.jdbc.Driver";
      default -> throw new IllegalArgumentException("no JDBC driver for " + dialect);
    };
  }

  @Override
  public void close() {
    if (store != null) {
      store.close();
    }
  }

  /** The class each JobDetail names; never instantiated, the job factory supplies the probe. */
  public static final class NoJob implements Job {
    @Override
    public void execute(JobExecutionContext context) {}
  }
}
