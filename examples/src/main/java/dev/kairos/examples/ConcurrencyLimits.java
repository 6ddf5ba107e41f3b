package dev.kairos.examples;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The README's "Concurrency limits" example: six exports due at once, each taking 300 ms, with at
 * most two at a time; and a group limit shared by two handlers that call one API.
 *
 * <p>Run: {@code mvn -B -q -pl examples -am test-compile exec:java
 * -Dmain=dev.kairos.examples.ConcurrencyLimits}
 */
public final class ConcurrencyLimits {
  private ConcurrencyLimits() {}

  /** Prints when each export starts. */
  public static void main(String[] args) throws Exception {
    CountDownLatch done = new CountDownLatch(6);
    long origin = System.nanoTime();
    try (Scheduler scheduler =
        Kairos.builder()
            .store(new InMemoryStore())
            .workers(8)
            .handler(
                "export",
                ctx -> {
                  long ms = Duration.ofNanos(System.nanoTime() - origin).toMillis();
                  System.out.printf("%-9s starts at %4d ms%n", ctx.key(), ms);
                  Thread.sleep(300);
                  done.countDown();
                })
            .handler("crm-pull", ctx -> {})
            .handler("crm-push", ctx -> {})
            .maxConcurrent("export", 2) // at most 2 exports at once (in a cluster: in all)
            .maxConcurrent("crm-api", 1, "crm-pull", "crm-push") // one CRM call at a time
            .build()) {
      scheduler.start();
      Instant due = Instant.now().plusMillis(100);
      for (int i = 1; i <= 6; i++) {
        scheduler.schedule(JobSpec.named("export-" + i).handler("export").at(due));
      }
      done.await(10, TimeUnit.SECONDS);
    }
  }
}
