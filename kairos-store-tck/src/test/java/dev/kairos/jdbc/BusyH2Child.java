package dev.kairos.jdbc;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Child JVM of {@link H2FileBoundTest}: a scheduler on the system clock over an H2 file that fires
 * {@link #JOBS} jobs every 20 ms, each run a write-back (a commit, a new H2 chunk), and prints
 * "RUNS n" after every {@link #PRINT_EVERY} runs until the parent kills it. Argument: the folder.
 */
final class BusyH2Child {
  static final int JOBS = 20;
  static final int PRINT_EVERY = 500;

  private BusyH2Child() {}

  public static void main(String[] args) {
    AtomicLong runs = new AtomicLong();
    Scheduler scheduler =
        Kairos.builder()
            .store(JdbcStore.h2(Path.of(args[0])))
            .workers(4)
            .handler(
                "busy",
                ctx -> {
                  long n = runs.incrementAndGet();
                  if (n % PRINT_EVERY == 0) {
                    System.out.println("RUNS " + n);
                    System.out.flush();
                  }
                })
            .build();
    scheduler.start();
    for (int i = 0; i < JOBS; i++) {
      scheduler.schedule(
          JobSpec.named("busy-" + i).handler("busy").fixedRate(Duration.ofMillis(20)));
    }
    System.out.println("STARTED");
    System.out.flush();
  }
}
