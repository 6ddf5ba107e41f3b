package dev.kairos.benchmarks;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobStore;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Kairos with its defaults (4 workers unless told, 5 min look-ahead, 10,000-job windows, default
 * misfire policy), over the store a supplier makes for each instance.
 */
class KairosAdapter implements Adapter {
  static final String HANDLER = "probe";

  private final int workers;
  private final Supplier<JobStore> stores;

  /**
   * Kairos over an {@link InMemoryStore} (defaults: keeps completed jobs and 100 runs of history).
   */
  KairosAdapter(int workers) {
    this(workers, InMemoryStore::new);
  }

  KairosAdapter(int workers, Supplier<JobStore> stores) {
    this.workers = workers;
    this.stores = stores;
  }

  @Override
  public Instance instance(Probe probe) {
    Scheduler scheduler =
        Kairos.builder()
            .store(stores.get())
            .workers(workers)
            .gracePeriod(Duration.ofSeconds(5))
            .handler(HANDLER, ctx -> probe.fired(ctx.scheduledFireTime()))
            .build();
    return new Instance() {
      @Override
      public void oneShot(String key, Instant due) {
        scheduler.schedule(JobSpec.named(key).handler(HANDLER).at(due));
      }

      @Override
      public void fixedRate(String key, Instant first, Duration period) {
        scheduler.schedule(JobSpec.named(key).handler(HANDLER).fixedRate(period).startAt(first));
      }

      @Override
      public void start() {
        scheduler.start();
      }

      @Override
      public void close() {
        scheduler.close();
      }
    };
  }

  @Override
  public void close() {}
}
