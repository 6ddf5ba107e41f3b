package dev.kairos.engine;

import dev.kairos.Job;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.internal.EngineConfig;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobStore;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Entry point: {@code Kairos.builder()...build()} makes a {@link Scheduler}.
 *
 * <pre>{@code
 * Scheduler scheduler = Kairos.builder()
 *     .store(new InMemoryStore())
 *     .workers(4)
 *     .handler("purge-sessions", ctx -> sessions.purgeExpired())
 *     .build();
 * scheduler.start();
 * }</pre>
 */
public final class Kairos {
  /** Default number of worker threads: 4 (one thread lets a slow job starve the rest). */
  public static final int DEFAULT_WORKERS = 4;

  /** Default look-ahead: the heap holds the jobs due within the next 5 minutes. */
  public static final Duration DEFAULT_LOOK_AHEAD = Duration.ofMinutes(5);

  /** Default window size: at most 10,000 jobs are read from the store per load. */
  public static final int DEFAULT_WINDOW_SIZE = 10_000;

  /** Default lease of a claimed fire in cluster mode: 30 seconds, renewed every 10. */
  public static final Duration DEFAULT_CLUSTER_LEASE = Duration.ofSeconds(30);

  /** Default longest interval between two reads of the cluster's change feed: 250 ms. */
  public static final Duration DEFAULT_CLUSTER_POLL = Duration.ofMillis(250);

  /** Default grace period of {@code close()}: 30 seconds. */
  public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofSeconds(30);

  /** Default startup timeout: how long {@code start()} retries a store that does not open. */
  public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(60);

  private Kairos() {}

  /** How often a cluster instance re-reads the store's clock to follow it. */
  public static final Duration CLUSTER_CLOCK_RESAMPLE = Duration.ofSeconds(10);

  /** A builder with the defaults above, the system clock and the system time zone. */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures and builds a scheduler. Every method validates its argument at once. */
  public static final class Builder {
    private JobStore store;
    private final Map<String, Job> handlers = new LinkedHashMap<>();
    private int workers = DEFAULT_WORKERS;
    private TimeSource clock = TimeSource.system();
    private ThreadFactory threadFactory;
    private Duration lookAhead = DEFAULT_LOOK_AHEAD;
    private int windowSize = DEFAULT_WINDOW_SIZE;
    private Duration gracePeriod = DEFAULT_GRACE_PERIOD;
    private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
    private final List<SchedulerListener> listeners = new ArrayList<>();
    private ZoneId defaultZone = ZoneId.systemDefault();
    private String instanceId;
    private Duration clusterLease = DEFAULT_CLUSTER_LEASE;
    private Duration clusterPoll = DEFAULT_CLUSTER_POLL;

    private Builder() {}

    /**
     * Cluster mode: how long a claimed fire holds without renewal, judged by the store's clock
     * (default 30 s; renewed every third of it). A fire whose instance died is re-run on another
     * instance after at most this long.
     */
    public Builder clusterLease(Duration lease) {
      if (lease == null || lease.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("cluster lease must be at least 1 s: " + lease);
      }
      this.clusterLease = lease;
      return this;
    }

    /**
     * Cluster mode: the longest interval between two reads of the change feed (default 250 ms);
     * stores that notify (PostgreSQL) deliver changes sooner.
     */
    public Builder clusterPoll(Duration poll) {
      if (poll == null || poll.isNegative() || poll.isZero()) {
        throw new IllegalArgumentException("cluster poll must be positive: " + poll);
      }
      this.clusterPoll = poll;
      return this;
    }

    /** Where jobs are stored (required). The scheduler closes it when it closes. */
    public Builder store(JobStore store) {
      this.store = require(store, "store");
      return this;
    }

    /** Number of worker threads (at least 1; default {@value Kairos#DEFAULT_WORKERS}). */
    public Builder workers(int workers) {
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be at least 1: " + workers);
      }
      this.workers = workers;
      return this;
    }

    /** Registers the code that jobs naming {@code name} run. Names are unique. */
    public Builder handler(String name, Job job) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("handler name is null or blank: '" + name + "'");
      }
      require(job, "job of handler '" + name + "'");
      if (handlers.putIfAbsent(name, job) != null) {
        throw new IllegalArgumentException("handler '" + name + "' is registered twice");
      }
      return this;
    }

    /** The time source (default {@link TimeSource#system()}; tests pass a {@link ManualClock}). */
    public Builder clock(TimeSource clock) {
      this.clock = require(clock, "clock");
      return this;
    }

    /** Makes the worker threads (default: non-daemon threads named kairos-worker-N). */
    public Builder threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = require(threadFactory, "threadFactory");
      return this;
    }

    /** How far ahead the heap holds due jobs (positive; default 5 minutes). */
    public Builder lookAhead(Duration lookAhead) {
      if (lookAhead == null || lookAhead.isNegative() || lookAhead.isZero()) {
        throw new IllegalArgumentException("look-ahead must be positive: " + lookAhead);
      }
      this.lookAhead = lookAhead;
      return this;
    }

    /** Most jobs read from the store per load (at least 2; default 10,000). */
    public Builder windowSize(int windowSize) {
      if (windowSize < 2) {
        throw new IllegalArgumentException("window size must be at least 2: " + windowSize);
      }
      this.windowSize = windowSize;
      return this;
    }

    /**
     * How long {@code close()} lets running jobs finish before interrupting them (default 30 s).
     */
    public Builder gracePeriod(Duration gracePeriod) {
      if (gracePeriod == null || gracePeriod.isNegative()) {
        throw new IllegalArgumentException("grace period must not be negative: " + gracePeriod);
      }
      this.gracePeriod = gracePeriod;
      return this;
    }

    /**
     * How long {@code start()} (and {@code open()}) keep trying to open a store that fails, for
     * instance a database that is restarting (default 60 s). Attempts back off from 100 ms to 5 s;
     * the first failure is logged at WARN. When the timeout runs out, {@code start()} throws a
     * {@link dev.kairos.StoreException} naming the store, the attempts and the last failure. Zero:
     * one attempt.
     */
    public Builder startupTimeout(Duration startupTimeout) {
      if (startupTimeout == null || startupTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "startup timeout must not be negative: " + startupTimeout);
      }
      this.startupTimeout = startupTimeout;
      return this;
    }

    /** Adds a listener for run events. */
    public Builder listener(SchedulerListener listener) {
      listeners.add(require(listener, "listener"));
      return this;
    }

    /** Zone of cron jobs that name none (default: the system zone), stored with each job. */
    public Builder defaultZone(ZoneId zone) {
      this.defaultZone = require(zone, "defaultZone");
      return this;
    }

    /** This instance's id, recorded with each run (default: a random id). */
    public Builder instanceId(String instanceId) {
      if (instanceId == null || instanceId.isBlank()) {
        throw new IllegalArgumentException("instance id is null or blank: '" + instanceId + "'");
      }
      this.instanceId = instanceId;
      return this;
    }

    /** Builds the scheduler; call {@link Scheduler#start()} to begin firing. */
    public Scheduler build() {
      return buildEngine();
    }

    /** Builds the engine's own type, for tests that drive it step by step. */
    public KairosScheduler buildEngine() {
      if (store == null) {
        throw new IllegalStateException("no store: call store(new InMemoryStore()) or a JdbcStore");
      }
      String id =
          instanceId != null
              ? instanceId
              : "kairos-" + UUID.randomUUID().toString().substring(0, 8);
      ThreadFactory factory = threadFactory != null ? threadFactory : defaultThreadFactory(id);
      return new KairosScheduler(
          new EngineConfig(
              store,
              Map.copyOf(handlers),
              workers,
              clusterClock(store, clock),
              factory,
              lookAhead,
              windowSize,
              gracePeriod,
              List.copyOf(listeners),
              defaultZone,
              id,
              new EngineConfig.ClusterSettings(clusterLease, clusterPoll),
              startupTimeout));
    }

    /**
     * In cluster mode every time that decides a fire (first fire, due, misfire) is the store's, so
     * an instance whose clock is skewed neither runs fires early nor computes first fires others
     * never reach: the real-time system clock is replaced by one that follows {@link
     * ClusterStore#storeNow()} (resampled every {@link #CLUSTER_CLOCK_RESAMPLE}); so is a real-time
     * clock with an offset, as a skewed machine clock would be. A manual or accelerated clock is
     * kept.
     */
    static TimeSource clusterClock(JobStore store, TimeSource clock) {
      if (clock instanceof SystemTimeSource s
          && s.realTime()
          && store instanceof ClusterStore cs
          && cs.clustered()) {
        return TimeSource.following(cs::storeNow, CLUSTER_CLOCK_RESAMPLE);
      }
      return clock;
    }

    private static ThreadFactory defaultThreadFactory(String id) {
      AtomicInteger n = new AtomicInteger();
      return r -> {
        Thread t = new Thread(r, "kairos-worker-" + n.incrementAndGet());
        t.setDaemon(false);
        return t;
      };
    }

    private static <T> T require(T value, String what) {
      if (value == null) {
        throw new IllegalArgumentException(what + " is null");
      }
      return value;
    }
  }
}
