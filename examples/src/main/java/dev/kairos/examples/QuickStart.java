package dev.kairos.examples;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * The README's quick-start, kept compiling: register handlers, start, schedule, inspect, change,
 * close.
 *
 * <p>Run: {@code mvn -B -q -pl examples -am test-compile exec:java
 * -Dmain=dev.kairos.examples.QuickStart}
 */
public final class QuickStart {
  private QuickStart() {}

  /** Stand-ins for the application's own services. */
  static final class Reports {
    void generateFor(Instant day) {
      System.out.println("report for " + day);
    }
  }

  static final class Sessions {
    void purgeExpired() {
      System.out.println("purged expired sessions");
    }
  }

  /** Runs the quick-start for a few seconds. */
  public static void main(String[] args) throws Exception {
    Reports reports = new Reports();
    Sessions sessions = new Sessions();

    // --- quick-start (README) ---
    Scheduler scheduler =
        Kairos.builder()
            .store(new InMemoryStore()) // or JdbcStore.h2(Path.of("kairos-data"))
            .workers(4)
            .handler("daily-report", ctx -> reports.generateFor(ctx.scheduledFireTime()))
            .handler("purge-sessions", ctx -> sessions.purgeExpired())
            .build();
    scheduler.start();

    scheduler.schedule(
        JobSpec.named("purge")
            .handler("purge-sessions")
            .fixedDelay(Duration.ofMinutes(5))
            .misfire(Misfire.skip()));

    scheduler.schedule(
        JobSpec.named("nightly-report")
            .handler("daily-report")
            .cron("0 0 2 * * ?", ZoneId.of("Europe/Berlin")) // every night at 02:00 Berlin time
            .misfire(Misfire.catchUp()));

    scheduler.job("purge").ifPresent(info -> System.out.println(info.nextFireTime()));
    scheduler.pause("purge");
    scheduler.resume("purge");
    scheduler.triggerNow("purge");
    // --- end of quick-start ---

    // --- many jobs (README) ---
    Map<String, ZoneId> tenants =
        Map.of("acme", ZoneId.of("Europe/Berlin"), "globex", ZoneId.of("America/New_York"));
    List<JobSpec> nightly =
        tenants.entrySet().stream()
            .map(
                t ->
                    JobSpec.named("report-" + t.getKey())
                        .handler("daily-report")
                        .data(t.getKey())
                        .cron("0 0 2 * * ?", t.getValue()))
            .toList();
    scheduler.scheduleAll(nightly); // all checked first, then written 1,000 per transaction
    scheduler.unscheduleAll(List.of("report-globex"));
    // --- end of many jobs ---

    Thread.sleep(500); // let the triggered run print, for the demo
    scheduler.unschedule("purge");
    scheduler.close();
  }
}
