package dev.kairos.jdbc;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child JVM of {@link H2CrashTest}: starts a scheduler on the system clock over an H2 file and
 * schedules an hourly job that, once running for 2 s, prints "RUNNING key scheduledFireTime" and
 * sleeps a minute, so the parent can kill the JVM in the middle of the run. Argument: folder.
 */
final class SlowJobChild {
  static final String KEY = "slow-job";

  private SlowJobChild() {}

  public static void main(String[] args) {
    Scheduler scheduler =
        Kairos.builder()
            .store(JdbcStore.h2(Path.of(args[0])))
            .handler(
                "slow",
                ctx -> {
                  // Past the store's start-mark delay (1 s), so the row is marked RUNNING.
                  Thread.sleep(JdbcStore.DEFAULT_START_MARK_DELAY.multipliedBy(2).toMillis());
                  System.out.println("RUNNING " + ctx.key() + " " + ctx.scheduledFireTime());
                  System.out.flush();
                  Thread.sleep(Duration.ofSeconds(60).toMillis());
                })
            .build();
    scheduler.start();
    scheduler.schedule(JobSpec.named(KEY).handler("slow").fixedRate(Duration.ofHours(1)));
  }
}
