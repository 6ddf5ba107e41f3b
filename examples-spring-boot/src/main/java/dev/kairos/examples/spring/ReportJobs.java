package dev.kairos.examples.spring;

import dev.kairos.JobContext;
import dev.kairos.spring.KairosScheduled;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Two recurring jobs declared on methods, as with Spring's {@code @Scheduled}. */
@Component
public class ReportJobs {
  private static final Logger log = LoggerFactory.getLogger(ReportJobs.class);
  private final List<String> runs = new CopyOnWriteArrayList<>();

  /**
   * Every minute on the minute, Berlin time; missed minutes are skipped.
   *
   * @param ctx the run, whose scheduled fire time names the report's minute
   */
  @KairosScheduled(
      key = "minute-report",
      cron = "0 * * * * *",
      zone = "Europe/Berlin",
      misfire = KairosScheduled.MisfirePolicy.SKIP)
  public void minuteReport(JobContext ctx) {
    runs.add("minute-report@" + ctx.scheduledFireTime());
    log.info("minute report for {}", ctx.scheduledFireTime());
  }

  /** Every 30 seconds, the first 10 seconds after the first start, retried twice on failure. */
  @KairosScheduled(
      key = "heartbeat",
      fixedRate = "30s",
      initialDelay = "10s",
      retryAttempts = 3,
      retryDelay = "5s")
  public void heartbeat() {
    runs.add("heartbeat");
    log.info("heartbeat");
  }

  /**
   * Runs so far in this process, for tests.
   *
   * @return the runs, as {@code minute-report@<fire time>} or {@code heartbeat}, oldest first
   */
  public List<String> runs() {
    return List.copyOf(runs);
  }
}
