package dev.kairos.engine;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Child JVM of {@link StuckJobTest}: runs a job that never returns and ignores interruption, closes
 * the scheduler and returns from main. The JVM must then exit by itself.
 */
public final class StuckJobChild {
  private StuckJobChild() {}

  /**
   * Runs the scenario; prints {@code closed after <ms> ms}.
   *
   * @param args none
   * @throws InterruptedException never (the main thread is not interrupted)
   */
  public static void main(String[] args) throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    Scheduler scheduler =
        Kairos.builder()
            .store(new InMemoryStore())
            .gracePeriod(Duration.ofMillis(200))
            .handler(
                "stuck",
                ctx -> {
                  started.countDown();
                  CountDownLatch never = new CountDownLatch(1);
                  for (; ; ) {
                    try {
                      never.await();
                    } catch (InterruptedException ignored) {
                      // a badly written job: swallows the interrupt and goes on waiting
                    }
                  }
                })
            .build();
    scheduler.start();
    scheduler.schedule(JobSpec.named("never-returns").handler("stuck").after(Duration.ZERO));
    started.await();
    long t0 = System.nanoTime();
    scheduler.close();
    System.out.println("closed after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
  }
}
