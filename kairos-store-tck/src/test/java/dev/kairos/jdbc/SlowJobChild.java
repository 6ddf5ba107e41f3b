package dev.kairos.jdbc;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child JVM of {@link H2CrashTest}: starts a scheduler on the system clock over an H2 file and
 * schedules an hourly job that, once running for 2 s, prints "RUNNING key scheduledFireTime" and
 * sleeps a minute, so the parent can kill the JVM in the middle of the run. Arguments: folder, and
 * optionally how many milliseconds the run goes on before it prints (default 2000).
 */
final class SlowJobChild {
  static final String KEY = "slow-job";

  private SlowJobChild() {}

  public static void main(String[] args) {
    long before = args.length > 1 ? Long.parseLong(args[1]) : 2000;
    Scheduler scheduler =
        Kairos.builder()
            .store(JdbcStore.h2(Path.of(args[0])))
            .handler(
                "slow",
                ctx -> {
                  Thread.sleep(before);
                  System.out.println("RUNNING " + ctx.key() + " " + ctx.scheduledFireTime());
                  System.out.flush();
                  Thread.sleep(Duration.ofSeconds(60).toMillis());
                })
            .build();
    scheduler.start();
    scheduler.schedule(JobSpec.named(KEY).handler("slow").fixedRate(Duration.ofHours(1)));
  }
}
