package dev.kairos.jdbc;

import dev.kairos.JobSpec;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * Child JVM of {@link H2CrashTest}: schedules N daily jobs in an H2 file through the scheduler,
 * prints "DONE" and waits to be killed. Arguments: folder, N, and optionally a JDBC URL to use
 * instead of {@code JdbcStore.h2(folder)}.
 */
final class ScheduleJobsChild {
  static final Instant NOW = Instant.parse("2026-01-05T00:00:00Z");

  private ScheduleJobsChild() {}

  public static void main(String[] args) throws InterruptedException {
    Path dir = Path.of(args[0]);
    int n = Integer.parseInt(args[1]);
    JdbcStore store =
        args.length > 2 ? JdbcStore.builder().url(args[2]).build() : JdbcStore.h2(dir);
    KairosScheduler scheduler =
        Engines.build(
            Kairos.builder().store(store).clock(new ManualClock(NOW)).handler("noop", ctx -> {}));
    scheduler.open();
    for (int i = 0; i < n; i++) {
      scheduler.schedule(
          JobSpec.named("job-" + i)
              .handler("noop")
              .fixedRate(Duration.ofDays(1))
              .startAt(NOW.plus(Duration.ofDays(1))));
    }
    System.out.println("DONE");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // the parent kills this JVM
  }
}
