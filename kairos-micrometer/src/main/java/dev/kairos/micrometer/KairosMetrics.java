package dev.kairos.micrometer;

import dev.kairos.JobContext;
import dev.kairos.LimitStatus;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * Records a Kairos scheduler's runs, lateness and misfires as Micrometer meters, and its engine
 * state as gauges. Usable without Spring:
 *
 * <pre>{@code
 * KairosMetrics metrics = KairosMetrics.builder(registry).build();
 * Scheduler scheduler = Kairos.builder().listener(metrics)...build();
 * metrics.bindTo(scheduler);   // gauges: queued, running, workers, store, write-backs waiting, instances, limits
 * }</pre>
 *
 * <p>Run meters carry the tags {@code key} (the job key) and {@code handler}; for stores with many
 * jobs, {@link Builder#keyTags(boolean) keyTags(false)} leaves the {@code key} tag out so the
 * number of time series grows with handlers, not jobs. The meters and their tags are listed in
 * {@code kairos-micrometer/README.md}.
 */
public final class KairosMetrics implements SchedulerListener {
  /**
   * Runs started, retries and recoveries included. Meter names follow Micrometer's dot convention.
   */
  public static final String RUNS_STARTED = "kairos.runs.started";

  /** Finished runs, tagged {@code outcome} = {@code success} or {@code failure}. */
  public static final String RUNS_FINISHED = "kairos.runs.finished";

  /** Run duration timer, tagged {@code outcome}. */
  public static final String RUN_DURATION = "kairos.run.duration";

  /** Actual start − scheduled fire time of first attempts, a timer with percentiles. */
  public static final String FIRE_LATENESS = "kairos.fire.lateness";

  /** Missed fires that a run stands for (made up by catch-up or covered by fire-once). */
  public static final String FIRES_LATE = "kairos.fires.late";

  /**
   * Fires a misfire or overlap policy dropped, tagged {@code policy} ({@code catch_up}, {@code
   * fire_once}, {@code skip}, {@code overlap_skip}, {@code overlap_buffer_one}, {@code
   * overlap_replace}).
   */
  public static final String FIRES_DROPPED = "kairos.fires.dropped";

  /** Failed runs that will be retried. */
  public static final String RETRIES = "kairos.runs.retries";

  /** Runs that repeat a fire interrupted by a crash or a lost instance. */
  public static final String RECOVERIES = "kairos.runs.recoveries";

  /** Gauge: jobs queued in the engine's heap. */
  public static final String JOBS_QUEUED = "kairos.jobs.queued";

  /** Gauge: jobs running (one worker each). */
  public static final String JOBS_RUNNING = "kairos.jobs.running";

  /** Gauge: size of the worker pool. */
  public static final String WORKERS = "kairos.workers";

  /** Gauge: workers running a job. */
  public static final String WORKERS_BUSY = "kairos.workers.busy";

  /** Gauge: 1 while the store answers, 0 while the engine retries it. */
  public static final String STORE_AVAILABLE = "kairos.store.available";

  /**
   * Timer of write-backs: from a run's end until the store took its outcome and next fire, retries
   * during an outage included; real time, with the lateness percentiles.
   */
  public static final String STORE_WRITEBACK = "kairos.store.writeback.duration";

  /**
   * Gauge: runs whose write-back the store failed and that wait for a retry of their own; their
   * jobs do not fire until written. Above 0 while {@value #STORE_AVAILABLE} is 1, the store refuses
   * those runs (the log names each job): alert on it.
   */
  public static final String STORE_WRITEBACK_WAITING = "kairos.store.writeback.waiting";

  /**
   * Gauge: cluster mode, instances whose heartbeat is current, this one included (0 outside cluster
   * mode).
   */
  public static final String CLUSTER_INSTANCES = "kairos.cluster.instances";

  /** Cluster mode: fires this instance queued but another instance claimed first. */
  public static final String CLAIMS_LOST = "kairos.cluster.claims.lost";

  /**
   * Cluster mode: jobs this instance queued from the overdue sweep because the change feed never
   * delivered their last change.
   */
  public static final String CHANGES_MISSED = "kairos.cluster.changes.missed";

  /**
   * Gauge per concurrency limit, tagged {@code limit} (its name): how many runs it allows at once.
   */
  public static final String LIMIT_PERMITS = "kairos.limit.permits";

  /**
   * Gauge per concurrency limit, tagged {@code limit}: its permits held on this instance (runs in
   * progress, backfill runs included); other cluster instances' runs are not counted.
   */
  public static final String LIMIT_RUNNING = "kairos.limit.running";

  /** Gauge per concurrency limit, tagged {@code limit}: due fires waiting here for a permit. */
  public static final String LIMIT_WAITING = "kairos.limit.waiting";

  private final MeterRegistry registry;
  private final boolean keyTags;
  private final Tags common;
  private final double[] percentiles;

  /** The start of the current run on this worker thread, in the registry clock's nanoseconds. */
  private final ThreadLocal<long[]> runStart = ThreadLocal.withInitial(() -> new long[1]);

  private KairosMetrics(Builder b) {
    this.registry = b.registry;
    this.keyTags = b.keyTags;
    this.common = b.tags;
    this.percentiles = b.percentiles.clone();
  }

  /**
   * A builder recording into {@code registry}.
   *
   * @param registry the registry the meters are registered in
   * @return a new builder
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(Objects.requireNonNull(registry, "registry"));
  }

  /**
   * Registers the gauges over {@code scheduler.stats()}: {@value #JOBS_QUEUED}, {@value
   * #JOBS_RUNNING}, {@value #WORKERS}, {@value #WORKERS_BUSY}, {@value #STORE_AVAILABLE}, {@value
   * #STORE_WRITEBACK_WAITING}, {@value #CLUSTER_INSTANCES}; and for each concurrency limit in
   * {@code scheduler.limits()} (read once here: limits are fixed when the scheduler is built),
   * {@value #LIMIT_PERMITS}, {@value #LIMIT_RUNNING} and {@value #LIMIT_WAITING}, tagged {@code
   * limit}. The registry holds the scheduler weakly, as Micrometer gauges do.
   *
   * @param scheduler the scheduler whose stats and limits the gauges read
   */
  public void bindTo(Scheduler scheduler) {
    gauge(JOBS_QUEUED, scheduler, s -> s.stats().queuedJobs(), "jobs", "Jobs queued in the heap");
    gauge(JOBS_RUNNING, scheduler, s -> s.stats().runningJobs(), "jobs", "Jobs running");
    gauge(WORKERS, scheduler, s -> s.stats().workers(), "threads", "Worker pool size");
    gauge(
        WORKERS_BUSY, scheduler, s -> s.stats().runningJobs(), "threads", "Workers running a job");
    gauge(
        STORE_AVAILABLE,
        scheduler,
        s -> s.stats().storeAvailable() ? 1 : 0,
        null,
        "1 while the store answers, 0 while it is retried");
    gauge(
        STORE_WRITEBACK_WAITING,
        scheduler,
        s -> s.stats().writeBacksWaiting(),
        "runs",
        "Runs whose write-back waits for a retry; their jobs do not fire until written");
    gauge(
        CLUSTER_INSTANCES,
        scheduler,
        s -> s.stats().liveInstances(),
        "instances",
        "Cluster instances with a current heartbeat");
    for (LimitStatus limit : scheduler.limits()) {
      limitGauges(scheduler, limit.name());
    }
  }

  private void limitGauges(Scheduler scheduler, String limit) {
    Tags tags = common.and("limit", limit);
    Gauge.builder(LIMIT_PERMITS, scheduler, s -> limitValue(s, limit, LimitStatus::permits))
        .tags(tags)
        .baseUnit("permits")
        .description("Runs the limit allows at once")
        .register(registry);
    Gauge.builder(LIMIT_RUNNING, scheduler, s -> limitValue(s, limit, LimitStatus::running))
        .tags(tags)
        .baseUnit("permits")
        .description("Permits of the limit held on this instance")
        .register(registry);
    Gauge.builder(LIMIT_WAITING, scheduler, s -> limitValue(s, limit, LimitStatus::waiting))
        .tags(tags)
        .baseUnit("fires")
        .description("Due fires waiting on this instance for a permit of the limit")
        .register(registry);
  }

  /** The limit's value, or NaN (no sample) if the scheduler no longer reports that limit. */
  private static double limitValue(Scheduler s, String limit, ToIntFunction<LimitStatus> value) {
    for (LimitStatus l : s.limits()) {
      if (l.name().equals(limit)) {
        return value.applyAsInt(l);
      }
    }
    return Double.NaN;
  }

  private void gauge(
      String name, Scheduler s, ToDoubleFunction<Scheduler> f, String unit, String description) {
    Gauge.builder(name, s, f)
        .tags(common)
        .baseUnit(unit)
        .description(description)
        .register(registry);
  }

  @Override
  public void runStarted(JobContext context) {
    runStart.get()[0] = registry.config().clock().monotonicTime();
    Tags tags = runTags(context);
    Counter.builder(RUNS_STARTED)
        .tags(tags)
        .description("Runs started")
        .register(registry)
        .increment();
    // A backfill run's start minus its fire time is no lateness: it runs a past fire on purpose.
    if (context.attempt() == 1 && !context.backfill()) {
      Duration lateness = Duration.between(context.scheduledFireTime(), context.actualStart());
      Timer.builder(FIRE_LATENESS)
          .tags(tags)
          .description("Actual start minus scheduled fire time, first attempts")
          .publishPercentiles(percentiles)
          .register(registry)
          .record(lateness.isNegative() ? Duration.ZERO : lateness);
      if (context.missedFires() > 0) {
        Counter.builder(FIRES_LATE)
            .tags(tags)
            .description("Missed fires a run stands for")
            .register(registry)
            .increment(context.missedFires());
      }
    }
    if (context.recovery()) {
      Counter.builder(RECOVERIES)
          .tags(tags)
          .description("Runs repeating a fire interrupted by a crash")
          .register(registry)
          .increment();
    }
  }

  @Override
  public void runSucceeded(JobContext context, Duration took) {
    finished(context, "success", took.toNanos());
  }

  @Override
  public void runFailed(JobContext context, Throwable error, boolean willRetry) {
    long took = registry.config().clock().monotonicTime() - runStart.get()[0];
    finished(context, "failure", Math.max(0, took));
    if (willRetry) {
      Counter.builder(RETRIES)
          .tags(runTags(context))
          .description("Failed runs that will be retried")
          .register(registry)
          .increment();
    }
  }

  private void finished(JobContext context, String outcome, long nanos) {
    Tags tags = runTags(context).and("outcome", outcome);
    Counter.builder(RUNS_FINISHED)
        .tags(tags)
        .description("Runs finished")
        .register(registry)
        .increment();
    Timer.builder(RUN_DURATION)
        .tags(tags)
        .description("Run duration")
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void firesDropped(String key, Instant oldestMissed, long dropped, Misfire policy) {
    countDropped(key, policyName(policy), dropped);
  }

  /**
   * Counted under {@link #FIRES_DROPPED} too, with policy {@code overlap_skip}, {@code
   * overlap_buffer_one} or {@code overlap_replace}.
   */
  @Override
  public void overlapDropped(String key, Instant oldestDropped, long dropped, Overlap policy) {
    String tag;
    if (policy instanceof Overlap.Skip) {
      tag = "overlap_skip";
    } else if (policy instanceof Overlap.Replace) {
      tag = "overlap_replace";
    } else {
      tag = "overlap_buffer_one";
    }
    countDropped(key, tag, dropped);
  }

  private void countDropped(String key, String policy, long dropped) {
    Tags tags = common.and("policy", policy);
    if (keyTags) {
      tags = tags.and("key", key);
    }
    Counter.builder(FIRES_DROPPED)
        .tags(tags)
        .description("Fires a misfire or overlap policy dropped or coalesced")
        .register(registry)
        .increment(dropped);
  }

  @Override
  public void runWrittenBack(JobContext context, Duration took) {
    Timer.builder(STORE_WRITEBACK)
        .tags(common)
        .description("Write-back of a run's outcome to the store, retries included")
        .publishPercentiles(percentiles)
        .register(registry)
        .record(took);
  }

  @Override
  public void claimLost(String key, Instant scheduledFireTime) {
    countForKey(CLAIMS_LOST, "Fires another cluster instance claimed first", key);
  }

  @Override
  public void changeMissed(String key, Instant dueTime) {
    countForKey(
        CHANGES_MISSED,
        "Jobs queued by the overdue sweep: the change feed missed their last change",
        key);
  }

  /** Adds one to a counter tagged with the job key (unless key tags are off). */
  private void countForKey(String name, String description, String key) {
    Counter.builder(name)
        .tags(keyTags ? common.and("key", key) : common)
        .description(description)
        .register(registry)
        .increment();
  }

  private Tags runTags(JobContext context) {
    Tags tags = common.and(Tag.of("handler", context.handler()));
    return keyTags ? tags.and("key", context.key()) : tags;
  }

  private static String policyName(Misfire policy) {
    if (policy instanceof Misfire.CatchUp) {
      return "catch_up";
    }
    if (policy instanceof Misfire.FireOnce) {
      return "fire_once";
    }
    return "skip";
  }

  /** Options for {@link KairosMetrics}; every one has a default. */
  public static final class Builder {
    private final MeterRegistry registry;
    private boolean keyTags = true;
    private Tags tags = Tags.empty();
    private double[] percentiles = {0.5, 0.95, 0.99};

    private Builder(MeterRegistry registry) {
      this.registry = registry;
    }

    /**
     * Whether run meters carry a {@code key} tag (default true). Turn off for stores with many
     * jobs: the {@code handler} tag stays.
     *
     * @param keyTags false to leave the {@code key} tag off
     * @return this builder
     */
    public Builder keyTags(boolean keyTags) {
      this.keyTags = keyTags;
      return this;
    }

    /**
     * Tags added to every meter, for example the application name.
     *
     * @param tags the common tags
     * @return this builder
     */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(tags);
      return this;
    }

    /**
     * Percentiles published for {@code kairos.fire.lateness} and {@code
     * kairos.store.writeback.duration} (default 0.5, 0.95, 0.99).
     *
     * @param percentiles the percentiles, each between 0 and 1
     * @return this builder
     */
    public Builder latencyPercentiles(double... percentiles) {
      for (double p : percentiles) {
        if (!(p >= 0 && p <= 1)) {
          throw new IllegalArgumentException("percentile " + p + " is not in [0, 1]");
        }
      }
      this.percentiles = percentiles.clone();
      return this;
    }

    /**
     * The listener; register it with {@code Kairos.builder().listener(...)}.
     *
     * @return the metrics listener
     */
    public KairosMetrics build() {
      return new KairosMetrics(this);
    }
  }
}
