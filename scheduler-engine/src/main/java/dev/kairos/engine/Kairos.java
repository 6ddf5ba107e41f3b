package dev.kairos.engine;

import dev.kairos.ConcurrencyLimit;
import dev.kairos.Job;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.internal.EngineConfig;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.StoreSource;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /**
   * A builder with the defaults above, the system clock and the system time zone.
   *
   * @return a new builder
   */
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
    private CallerTransactions callerTransactions = CallerTransactions.NONE;
    private final List<ConcurrencyLimit> limits = new ArrayList<>();

    private Builder() {}

    /**
     * How the scheduler learns that a change made through it belongs to a transaction of the
     * caller's that commits later (default {@link CallerTransactions#NONE}: the store commits each
     * call). Framework integrations set it when the store takes part in their transactions.
     *
     * @param callerTransactions the hook
     * @return this builder
     */
    public Builder callerTransactions(CallerTransactions callerTransactions) {
      this.callerTransactions = require(callerTransactions, "callerTransactions");
      return this;
    }

    /**
     * Cluster mode: how long a claimed fire holds without renewal, judged by the store's clock
     * (default 30 s; renewed every third of it). A fire whose instance died is re-run on another
     * instance after at most this long.
     *
     * @param lease the lease
     * @return this builder
     */
    public Builder clusterLease(Duration lease) {
      require(lease, "lease");
      if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("cluster lease must be at least 1 s: " + lease);
      }
      this.clusterLease = lease;
      return this;
    }

    /**
     * Cluster mode: the longest interval between two reads of the change feed (default 250 ms);
     * stores that notify (PostgreSQL) deliver changes sooner.
     *
     * @param poll the longest interval
     * @return this builder
     */
    public Builder clusterPoll(Duration poll) {
      require(poll, "poll");
      if (poll.isNegative() || poll.isZero()) {
        throw new IllegalArgumentException("cluster poll must be positive: " + poll);
      }
      this.clusterPoll = poll;
      return this;
    }

    /**
     * Where jobs are stored (required): an {@link InMemoryStore}, a {@code JdbcStore}, or any
     * {@link JobStore}. A {@code JobStore} is used as given (so a decorator that delegates every
     * call, {@code jobStore()} included, is not bypassed); any other source gives its {@link
     * StoreSource#jobStore() jobStore()}. The scheduler opens the store at {@code start()} and
     * closes it when it closes.
     *
     * @param store the store
     * @return this builder
     */
    public Builder store(StoreSource store) {
      require(store, "store");
      JobStore s = store instanceof JobStore js ? js : store.jobStore();
      if (s == null) {
        throw new IllegalArgumentException("store " + store + " returned a null jobStore()");
      }
      this.store = s;
      return this;
    }

    /**
     * Number of worker threads (at least 1; default {@value Kairos#DEFAULT_WORKERS}).
     *
     * @param workers the number of worker threads
     * @return this builder
     */
    public Builder workers(int workers) {
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be at least 1: " + workers);
      }
      this.workers = workers;
      return this;
    }

    /**
     * Registers the code that jobs naming {@code name} run. Names are unique.
     *
     * @param name the handler's name, which jobs refer to
     * @param job the code to run
     * @return this builder
     */
    public Builder handler(String name, Job job) {
      require(name, "name");
      if (name.isBlank() || name.length() > 200) {
        throw new IllegalArgumentException(
            "handler name must be 1 to 200 characters, not blank: '" + name + "'");
      }
      require(job, "job");
      if (handlers.putIfAbsent(name, job) != null) {
        throw new IllegalArgumentException("handler '" + name + "' is registered twice");
      }
      return this;
    }

    /**
     * At most {@code n} runs at once of jobs with handler {@code handler} (in cluster mode, across
     * all instances): fires beyond it wait, and their misfire policy is judged when they start.
     * Same as {@code concurrencyLimit(ConcurrencyLimit.of(handler, n))}.
     *
     * @param handler a handler registered with {@link #handler}
     * @param n runs at once, 1 or more
     * @return this builder
     */
    public Builder maxConcurrent(String handler, int n) {
      return concurrencyLimit(ConcurrencyLimit.of(handler, n));
    }

    /**
     * At most {@code n} runs at once, together, of jobs with any of {@code handlers}: a group
     * sharing {@code n} permits. Same as {@code concurrencyLimit(ConcurrencyLimit.group(group, n,
     * handlers))}.
     *
     * @param group the group's name, unique among limits and handlers
     * @param n runs at once, 1 or more
     * @param handlers handlers registered with {@link #handler}, each in no other limit
     * @return this builder
     */
    public Builder maxConcurrent(String group, int n, String... handlers) {
      return concurrencyLimit(ConcurrencyLimit.group(group, n, handlers));
    }

    /**
     * Adds a concurrency limit. Checked at {@link #build()}: every handler it names must be
     * registered and in no other limit, and its name must be no other limit's, nor (for a group) a
     * registered handler's.
     *
     * @param limit the limit
     * @return this builder
     */
    public Builder concurrencyLimit(ConcurrencyLimit limit) {
      limits.add(require(limit, "limit"));
      return this;
    }

    /**
     * The time source (default {@link TimeSource#system()}; tests pass a {@link ManualClock}).
     *
     * @param clock the time source
     * @return this builder
     */
    public Builder clock(TimeSource clock) {
      this.clock = require(clock, "clock");
      return this;
    }

    /**
     * Makes the worker threads (default: threads named kairos-worker-&lt;instance id&gt;-N, so the
     * workers of two schedulers in one JVM tell apart in a thread dump). Workers are always made
     * daemon threads: while the scheduler runs, a non-daemon keep-alive thread holds the JVM, and
     * {@code close()} ends it, so a job that never returns cannot keep the JVM from exiting. {@code
     * start()} makes every worker before it starts any thread: a factory that fails, returns null
     * or returns a thread that is not new makes it throw an IllegalStateException naming the
     * worker, with no thread started.
     *
     * @param threadFactory makes the worker threads
     * @return this builder
     */
    public Builder threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = require(threadFactory, "threadFactory");
      return this;
    }

    /**
     * How far ahead the heap holds due jobs (positive; default 5 minutes).
     *
     * @param lookAhead the look-ahead horizon
     * @return this builder
     */
    public Builder lookAhead(Duration lookAhead) {
      require(lookAhead, "lookAhead");
      if (lookAhead.isNegative() || lookAhead.isZero()) {
        throw new IllegalArgumentException("look-ahead must be positive: " + lookAhead);
      }
      this.lookAhead = lookAhead;
      return this;
    }

    /**
     * Sizes the window of due jobs held in memory (at least 2; default 10,000): a load reads at
     * most this many rows, and at most 1,000; while more are due, the next load comes, with workers
     * running what is queued, whenever fewer than half this many are queued.
     *
     * @param windowSize the most jobs per load, and twice the queue length that triggers the next
     * @return this builder
     */
    public Builder windowSize(int windowSize) {
      if (windowSize < 2) {
        throw new IllegalArgumentException("window size must be at least 2: " + windowSize);
      }
      this.windowSize = windowSize;
      return this;
    }

    /**
     * How long {@code close()} lets running jobs finish before interrupting them (default 30 s).
     * {@code close()} returns at most 5 s after it, whether or not interrupted jobs stop.
     *
     * @param gracePeriod the grace period
     * @return this builder
     */
    public Builder gracePeriod(Duration gracePeriod) {
      require(gracePeriod, "gracePeriod");
      if (gracePeriod.isNegative()) {
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
     *
     * @param startupTimeout how long to retry opening the store, zero or more
     * @return this builder
     */
    public Builder startupTimeout(Duration startupTimeout) {
      if (startupTimeout == null || startupTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "startup timeout must not be negative: " + startupTimeout);
      }
      this.startupTimeout = startupTimeout;
      return this;
    }

    /**
     * Adds a listener for run events.
     *
     * @param listener the listener
     * @return this builder
     */
    public Builder listener(SchedulerListener listener) {
      listeners.add(require(listener, "listener"));
      return this;
    }

    /**
     * Zone of cron jobs that name none (default: the system zone), stored with each job.
     *
     * @param zone the zone of cron jobs that name none
     * @return this builder
     */
    public Builder defaultZone(ZoneId zone) {
      this.defaultZone = require(zone, "defaultZone");
      return this;
    }

    /**
     * This instance's id, recorded with each run (default: a random id): 1 to 200 characters, not
     * blank, no control character and no unpaired surrogate (the rules of a job key); {@code
     * start()} also refuses one its store cannot hold ({@link dev.kairos.spi.JobStore#unholdable}:
     * a PostgreSQL database in LATIN1, say).
     *
     * @param instanceId this instance's id
     * @return this builder
     * @throws IllegalArgumentException naming the id and the problem
     */
    public Builder instanceId(String instanceId) {
      require(instanceId, "instanceId");
      JobRules.checkInstanceId(instanceId);
      this.instanceId = instanceId;
      return this;
    }

    /**
     * Builds the scheduler; call {@link Scheduler#start()} to begin firing.
     *
     * @return the scheduler, not started
     */
    public Scheduler build() {
      if (store == null) {
        throw new IllegalStateException("no store: call store(new InMemoryStore()) or a JdbcStore");
      }
      String id =
          instanceId != null
              ? instanceId
              : "kairos-" + UUID.randomUUID().toString().substring(0, 8);
      ThreadFactory factory = threadFactory != null ? threadFactory : defaultThreadFactory(id);
      checkLimits();
      TimeSource time = clusterClock(store, clock);
      Runnable resampleClock = time instanceof FollowingTimeSource f ? f::resampleNow : () -> {};
      return new KairosScheduler(
          new EngineConfig(
              store,
              Map.copyOf(handlers),
              workers,
              time,
              factory,
              lookAhead,
              windowSize,
              gracePeriod,
              List.copyOf(listeners),
              defaultZone,
              id,
              new EngineConfig.ClusterSettings(clusterLease, clusterPoll),
              startupTimeout,
              callerTransactions,
              List.copyOf(limits),
              resampleClock));
    }

    /** Refuses limits that name unknown handlers, share a handler, or clash by name. */
    private void checkLimits() {
      Map<String, String> limitOf = new HashMap<>();
      Set<String> names = new HashSet<>();
      for (ConcurrencyLimit l : limits) {
        if (!names.add(l.name())) {
          throw new IllegalArgumentException(
              "concurrency limit '" + l.name() + "' is given twice (names are unique)");
        }
        boolean ownHandler = l.handlers().equals(Set.of(l.name()));
        if (!ownHandler && handlers.containsKey(l.name())) {
          throw new IllegalArgumentException(
              "concurrency limit group '"
                  + l.name()
                  + "' has the name of a handler; name the group differently");
        }
        for (String h : l.handlers()) {
          if (!handlers.containsKey(h)) {
            throw new IllegalArgumentException(
                "concurrency limit '" + l.name() + "' names handler '" + h + "', not registered");
          }
          String before = limitOf.putIfAbsent(h, l.name());
          if (before != null) {
            throw new IllegalArgumentException(
                "handler '"
                    + h
                    + "' is in two concurrency limits: '"
                    + before
                    + "' and '"
                    + l.name()
                    + "'");
          }
        }
      }
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
        Thread t = new Thread(r, "kairos-worker-" + id + "-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      };
    }

    private static <T> T require(T value, String what) {
      if (value == null) {
        throw new NullPointerException(what + " must not be null");
      }
      return value;
    }
  }
}
