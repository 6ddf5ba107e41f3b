package dev.kairos.examples;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Seed 000's experiment in real time: a job with a 400 ms period (or delay) whose first run, at 200
 * ms, takes 1000 ms. Fixed rate makes up the missed fires back to back; fixed delay keeps a full
 * gap.
 *
 * <p>Run: {@code mvn -B -q -pl examples -am test-compile exec:java
 * -Dmain=dev.kairos.examples.FixedRateTimeline}
 */
public final class FixedRateTimeline {
  private FixedRateTimeline() {}

  /** Prints both timelines. */
  public static void main(String[] args) throws Exception {
    timeline(
        "fixed rate 400 ms, catchUp()",
        s -> s.fixedRate(Duration.ofMillis(400)).misfire(Misfire.catchUp()),
        5);
    timeline("fixed delay 400 ms", s -> s.fixedDelay(Duration.ofMillis(400)), 3);
  }

  private static void timeline(String title, Function<JobSpec, JobSpec> how, int runs)
      throws InterruptedException {
    System.out.println(title);
    CountDownLatch done = new CountDownLatch(runs);
    long[] origin = new long[2];
    try (Scheduler scheduler =
        Kairos.builder()
            .store(new InMemoryStore())
            .workers(4)
            .handler(
                "timeline",
                (JobContext ctx) -> {
                  long n = runs - done.getCount() + 1;
                  if (n > runs) {
                    return;
                  }
                  long start = Duration.ofNanos(System.nanoTime() - origin[0]).toMillis();
                  System.out.printf(
                      "  run %d %5d ms   (scheduled %5d ms)%n",
                      n, start, ctx.scheduledFireTime().toEpochMilli() - origin[1]);
                  if (n == 1) {
                    Thread.sleep(1000);
                  }
                  done.countDown();
                })
            .build()) {
      scheduler.start();
      origin[0] = System.nanoTime();
      origin[1] = Instant.now().toEpochMilli();
      scheduler.schedule(
          how.apply(JobSpec.named("timeline").handler("timeline"))
              .initialDelay(Duration.ofMillis(200)));
      done.await(10, TimeUnit.SECONDS);
    }
    System.out.println();
  }
}
