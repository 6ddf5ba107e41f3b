package dev.kairos.dashboard;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

/** A started scheduler on an in-memory store with known jobs, for the dashboard tests. */
final class Fixture implements AutoCloseable {
  /** A key and an error text that would run script if they reached a page unescaped. */
  static final String XSS_KEY = "<script>alert('key')</script>";

  static final String XSS_ERROR = "<img src=x onerror=alert('error')>";

  final Scheduler scheduler;

  Fixture() {
    scheduler =
        Kairos.builder()
            .store(new InMemoryStore())
            .workers(2)
            .handler("ok", ctx -> {})
            .handler(
                "fail",
                ctx -> {
                  throw new IllegalStateException(XSS_ERROR);
                })
            .build();
    scheduler.start();
    Instant far = Instant.parse("2099-01-01T00:00:00Z");
    scheduler.schedule(
        JobSpec.named("nightly-report")
            .handler("ok")
            .cron("0 0 2 * * ?", ZoneId.of("Europe/Berlin"))
            .misfire(Misfire.catchUp()));
    scheduler.schedule(
        JobSpec.named(XSS_KEY).handler("fail").fixedRate(Duration.ofHours(1)).startAt(far));
    scheduler.schedule(
        JobSpec.named("purge a/b&c=d").handler("ok").fixedDelay(Duration.ofHours(1)).startAt(far));
  }

  @Override
  public void close() {
    scheduler.close();
  }
}
