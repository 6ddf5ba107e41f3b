package dev.kairos.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Properties;
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
 * DDL script in Quartz's own jar. Settings: a thread pool of {@code workers}; trigger acquisition
 * batches of up to {@code workers} triggers (Quartz's advice: no more than the pool), no fire-ahead
 * window; misfire threshold 60 s (the default); HikariCP pool of {@code workers + 2} connections;
 * not clustered. Jobs and triggers are default SimpleTriggers (one-shot, or repeat forever at the
 * period), one JobDetail per job.
 */
final class QuartzAdapter implements Adapter {
  private static final String NAME = "kairos-bench";

  private final Store store;
  private final int workers;

  /**
   * @param store the database of JobStoreTX, or null for RAMJobStore
   */
  QuartzAdapter(Store store, int workers) {
    this.store = store;
    this.workers = workers;
    if (store != null) {
      String script = store.dialect().equals("h2") ? "tables_h2.sql" : "tables_postgres.sql";
      store.runScript(Store.resource("org/quartz/impl/jdbcjobstore/" + script));
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
      public void close() throws SchedulerException {
        scheduler.shutdown(true);
      }
    };
  }

  private static JobDetail detail(String key) {
    return JobBuilder.newJob(NoJob.class).withIdentity(key).build();
  }

  private Properties properties() {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", NAME);
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
        store.dialect().equals("h2")
            ? "org.quartz.impl.jdbcjobstore.StdJDBCDelegate"
            : "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
    p.setProperty("org.quartz.jobStore.dataSource", "ds");
    p.setProperty("org.quartz.jobStore.isClustered", "false");
    p.setProperty("org.quartz.dataSource.ds.provider", "hikaricp");
    p.setProperty(
        "org.quartz.dataSource.ds.driver",
        store.dialect().equals("h2") ? "org.h2.Driver" : "org.postgresql.Driver");
    p.setProperty("org.quartz.dataSource.ds.URL", store.url());
    p.setProperty("org.quartz.dataSource.ds.user", store.user());
    p.setProperty("org.quartz.dataSource.ds.password", store.password());
    p.setProperty("org.quartz.dataSource.ds.maxConnections", Integer.toString(workers + 2));
    return p;
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
