package dev.kairos.benchmarks;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.StoreSource;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Kairos with its defaults (4 workers unless told, 5 min look-ahead, 10,000-job windows, misfire
 * {@code fireOnce()}), over an {@link InMemoryStore} or a {@link JdbcStore}, each with its own
 * defaults (completed one-shot jobs kept, 100 runs of history per job; the JDBC store's pool of 8
 * connections). Each instance gets a store object of its own over the same database.
 */
final class KairosAdapter implements Adapter {
  static final String HANDLER = "probe";

  private final int workers;
  private final Supplier<StoreSource> stores;
  private final Store database;

  private KairosAdapter(int workers, Supplier<StoreSource> stores, Store database) {
    this.workers = workers;
    this.stores = stores;
    this.database = database;
  }

  static KairosAdapter inMemory(int workers) {
    return new KairosAdapter(workers, InMemoryStore::new, null);
  }

  /** {@code JdbcStore.h2(dir)} for an H2 file, {@code JdbcStore.builder().url(..)} otherwise. */
  static KairosAdapter jdbc(Store database, int workers, boolean clustered) {
    Supplier<StoreSource> stores;
    if (Counting.enabled()) {
      stores =
          () -> {
            com.zaxxer.hikari.HikariConfig c = new com.zaxxer.hikari.HikariConfig();
            c.setJdbcUrl(database.url());
            c.setUsername(database.user());
            c.setPassword(database.password());
            c.setMaximumPoolSize(8); // the JDBC store's own default
            com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(c);
            POOLS.add(pool);
            return JdbcStore.builder().dataSource(Counting.wrap(pool)).clustered(clustered).build();
          };
    } else if (database instanceof Store.H2File h2) {
      stores = () -> JdbcStore.h2(h2.dir());
    } else {
      stores =
          () ->
              JdbcStore.builder()
                  .url(database.url())
                  .user(database.user())
                  .password(database.password())
                  .clustered(clustered)
                  .build();
    }
    return new KairosAdapter(workers, stores, database);
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

  /** Pools made for counted runs ({@link Counting}), closed with the adapter. */
  private static final java.util.List<java.io.Closeable> POOLS =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  @Override
  public void close() {
    for (java.io.Closeable pool : POOLS) {
      try {
        pool.close();
      } catch (java.io.IOException e) {
        System.err.println("closing a pool: " + e);
      }
    }
    POOLS.clear();
    if (database != null) {
      database.close();
    }
  }
}
