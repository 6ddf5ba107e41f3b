package dev.kairos.benchmarks;

import java.time.Duration;
import java.time.Instant;

/**
 * One product under test, over a store it creates empty and drops when closed. Every scenario talks
 * to products through this and {@link Instance} only, so each adapter stays small.
 */
interface Adapter extends AutoCloseable {

  /**
   * A scheduler over this adapter's store whose jobs all run {@code probe}; not started, so jobs
   * scheduled now wait for {@link Instance#start()}. A persistent product may be asked for a second
   * instance after the first is closed: it must find the first one's jobs.
   */
  Instance instance(Probe probe) throws Exception;

  /** Drops the store (database files, schema). */
  @Override
  void close();

  /** A running (or not yet started) scheduler of the product. */
  interface Instance extends AutoCloseable {
    /** Schedules a job that fires once, at {@code due}. */
    void oneShot(String key, Instant due) throws Exception;

    /** Schedules a job that fires at {@code first}, then every {@code period} after it. */
    void fixedRate(String key, Instant first, Duration period) throws Exception;

    /** Starts firing. */
    void start() throws Exception;

    /**
     * Stops, waiting a bounded time for running jobs; the store is kept. An interrupt while waiting
     * is kept in the thread's flag.
     */
    @Override
    void close();
  }
}
