package dev.kairos.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The JDK's ScheduledThreadPoolExecutor: the in-memory limit, with no store, no misfire policy and
 * no job identity. It has no "not started" state, so an instance holds its workers on a gate until
 * {@link Instance#start()}: tasks scheduled before that wait in its queue like the other products'
 * jobs wait in theirs.
 */
final class StpeAdapter implements Adapter {
  private final int workers;

  StpeAdapter(int workers) {
    this.workers = workers;
  }

  @Override
  public Instance instance(Probe probe) throws InterruptedException {
    ScheduledThreadPoolExecutor stpe = new ScheduledThreadPoolExecutor(workers);
    stpe.setRemoveOnCancelPolicy(true);
    CountDownLatch gate = new CountDownLatch(1);
    CountDownLatch held = new CountDownLatch(workers);
    for (int i = 0; i < workers; i++) {
      stpe.execute(
          () -> {
            held.countDown();
            try {
              gate.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    held.await();
    return new Instance() {
      @Override
      public void oneShot(String key, Instant due) {
        long dueMicros = Probe.micros(due);
        stpe.schedule(() -> probe.fired(dueMicros), nanosUntil(due), TimeUnit.NANOSECONDS);
      }

      @Override
      public void fixedRate(String key, Instant first, Duration period) {
        long firstMicros = Probe.micros(first);
        long periodMicros = period.toNanos() / 1_000;
        Runnable task =
            new Runnable() {
              private long n; // runs so far; a fixed-rate task never overlaps itself

              @Override
              public void run() {
                probe.fired(firstMicros + n++ * periodMicros);
              }
            };
        stpe.scheduleAtFixedRate(task, nanosUntil(first), period.toNanos(), TimeUnit.NANOSECONDS);
      }

      @Override
      public void start() {
        gate.countDown();
      }

      @Override
      public void close() {
        gate.countDown();
        stpe.shutdownNow();
        try {
          stpe.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
  }

  private static long nanosUntil(Instant t) {
    return Math.max(0, Duration.between(Instant.now(), t).toNanos());
  }

  @Override
  public void close() {}
}
