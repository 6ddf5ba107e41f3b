package dev.kairos.engine.internal;

import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.Schedule;
import dev.kairos.Scheduler;
import dev.kairos.UnreadableJobException;
import dev.kairos.spi.BackfillSlot;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.JobStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Scheduler#backfill}: turns a window into the job's timetable slots, queues them in the
 * store, and runs the queued slots, one at a time, on a thread of its own (or on the caller's, by
 * the step API {@link #runPending()}).
 *
 * <h2>Design notes</h2>
 *
 * <p>The slots live only in the store ({@link JobStore#addBackfill}, one row per key and fire
 * time), so queueing is idempotent and survives restarts; nothing of them is held in memory. Each
 * pass asks the store for the next slot of every job ({@link JobStore#nextBackfill}: a job's
 * earliest slot not done, if pending), claims each with a compare-and-set on its state, runs it and
 * writes it back as done with its history row. So a job's slots run in ascending order, one at a
 * time even across instances (its next slot is offered only once the one before is done), and each
 * runs once among live instances. A claim whose instance died is given back by {@link
 * JobStore#releaseBackfill}: at start for a single instance (every claim is then a crashed run's),
 * in cluster mode at each pass for instances no longer live; the slot then runs again (at least
 * once). A run cut off by {@code close()} is not written back, so it runs again the same way. A
 * written-back slot that the store failed to take is retried at the next pass.
 *
 * <p>Concurrency limits: a backfill run holds a permit of its handler's limit as a regular run does
 * ({@link Dispatcher#takeBackfillPermit}), taken before the claim and given back after the
 * write-back; regular fires waiting for a permit come first, and a slot refused one waits for a
 * later pass (the dispatcher wakes this thread when a permit frees). In cluster mode the claim is
 * also judged against the limit's count in the store ({@link ClusterStore#claimBackfillWithin}).
 *
 * <p>Overlap: the handler call goes through {@link RunGate}, so on this instance a backfill run and
 * a regular run of the same job never overlap. In cluster mode another instance's regular run of
 * the job is not excluded (the job row's claim is not taken).
 *
 * <p>A paused job's slots wait (the pass skips it until resumed); a job whose handler is not
 * registered here waits for an instance that has it; deleting a job deletes its slots in the same
 * store call, and queueing locks the job first, so no slot outlives its job. Jitter is not applied:
 * a slot runs as soon as the pass reaches it.
 */
final class Backfills implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(Backfills.class);

  /** Slots asked of the store per pass (at most one per job). */
  static final int PASS = 64;

  /** How often the thread looks for work it was not told of (cluster, paused jobs). */
  static final Duration POLL = Duration.ofSeconds(1);

  private final EngineConfig config;
  private final Listeners listeners;
  private final RunGate gate;

  /** Hands out the permits of concurrency limits, which backfill runs take as regular runs do. */
  private final Dispatcher dispatcher;

  private final BooleanSupplier closing;

  /** The cluster store in cluster mode; null for one instance. */
  private final ClusterStore cluster;

  /**
   * Finished runs whose write-back failed, retried at the next pass. Only the thread touches it.
   */
  private final List<RunRecord> unwritten = new ArrayList<>();

  /**
   * Cluster mode: when (System.nanoTime()) to look next for claims of dead instances, every third
   * of a lease, as the cluster sync looks for expired fire claims. Only the running thread.
   */
  private long nextRelease = System.nanoTime();

  /** Keys already warned about (unreadable, handler missing), so each is logged once. */
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();

  /** Set by {@link #wake()}: a pass may find something new. Guarded by lock. */
  private boolean signalled = true;

  /** Set once by {@link #stop()}. Guarded by lock. */
  private boolean stopped;

  Backfills(
      EngineConfig config,
      Listeners listeners,
      RunGate gate,
      Dispatcher dispatcher,
      BooleanSupplier closing) {
    this.config = config;
    this.dispatcher = dispatcher;
    this.listeners = listeners;
    this.gate = gate;
    this.closing = closing;
    this.cluster = config.store() instanceof ClusterStore cs && cs.clustered() ? cs : null;
  }

  // ---- queueing ------------------------------------------------------------------------------

  /**
   * Queues the job's slots in [from, to) and returns how many were new. Checks first, writes
   * nothing on a refusal.
   */
  int queue(JobRecord job, Instant from, Instant to, Instant now) {
    String key = job.key();
    if (from.isAfter(to)) {
      throw new IllegalArgumentException(
          "backfill of job '" + key + "': from " + from + " is after to " + to);
    }
    if (to.isAfter(now)) {
      throw new IllegalArgumentException(
          "backfill of job '" + key + "': to " + to + " is in the future (now is " + now + ")");
    }
    List<Instant> slots = slots(job, from, to);
    if (slots.isEmpty()) {
      return 0;
    }
    int added = config.store().addBackfill(key, slots);
    log.info(
        "job '{}': backfill of [{}, {}) queued {} new slot(s) of {}",
        key,
        from,
        to,
        added,
        slots.size());
    wake();
    return added;
  }

  /**
   * The job's timetable slots in [from, to), ascending. Fixed rate: anchored at the start instant,
   * or else at the stored next (or last) fire; a one-shot: its fire; cron: every match. Refuses a
   * fixed delay and more than {@link Scheduler#MAX_BACKFILL_SLOTS} slots.
   */
  static List<Instant> slots(JobRecord job, Instant from, Instant to) {
    String key = job.key();
    Schedule s = job.spec().schedule();
    List<Instant> out = new ArrayList<>();
    if (s instanceof Schedule.FixedDelay d) {
      throw new IllegalArgumentException(
          "backfill of job '"
              + key
              + "': a fixed-delay schedule ("
              + d.delay()
              + ") has no timetable apart from its runs; nothing to backfill");
    } else if (s instanceof Schedule.Once o) {
      Instant at = o.at() != null ? o.at() : anchor(job);
      if (at != null && !at.isBefore(from) && at.isBefore(to)) {
        out.add(at);
      }
      return out;
    } else if (s instanceof Schedule.FixedRate r) {
      Instant anchor = job.spec().startAt().orElse(anchor(job));
      if (anchor == null) {
        return out;
      }
      Instant f = firstAtOrAfter(anchor, r.period(), from, job.spec().startAt().isPresent());
      for (; f.isBefore(to); f = Timetables.plus(f, r.period())) {
        add(out, f, key);
      }
      return out;
    }
    Timetable tt = Timetables.of(job.spec());
    Optional<Instant> f = tt.first(from.minusNanos(1)); // first() is strictly after its argument
    for (; f.isPresent() && f.get().isBefore(to); f = tt.successor(f.get())) {
      if (!f.get().isBefore(from)) {
        add(out, f.get(), key);
      }
    }
    return out;
  }

  /** A fire of the job's timetable it has stored: its next, or else its last. */
  private static Instant anchor(JobRecord job) {
    return job.nextFireTime() != null ? job.nextFireTime() : job.lastScheduledFireTime();
  }

  /** The first anchor + k·period at or after {@code from}, with k ≥ 0 if the anchor starts it. */
  private static Instant firstAtOrAfter(
      Instant anchor, Duration period, Instant from, boolean starts) {
    long p = period.toNanos();
    Duration gap = Duration.between(anchor, from);
    long k;
    try {
      long n = gap.toNanos();
      k = Math.floorDiv(n, p) + (Math.floorMod(n, p) == 0 ? 0 : 1);
    } catch (ArithmeticException e) { // more than 292 years apart: step by whole periods
      k = gap.dividedBy(period) + (gap.isNegative() ? 0 : 1);
    }
    if (starts && k < 0) {
      k = 0;
    }
    return Timetables.plus(anchor, period.multipliedBy(k));
  }

  private static void add(List<Instant> out, Instant f, String key) {
    if (out.size() >= Scheduler.MAX_BACKFILL_SLOTS) {
      throw new IllegalArgumentException(
          "backfill of job '"
              + key
              + "': the window holds more than "
              + Scheduler.MAX_BACKFILL_SLOTS
              + " slots (the most one call queues); split it");
    }
    out.add(f);
  }

  // ---- running -------------------------------------------------------------------------------

  /** At the start of a single instance: every claim left in the store is a crashed run's. */
  void recover() {
    if (cluster == null) {
      int n = config.store().releaseBackfill(List.of());
      if (n > 0) {
        log.info("{} backfill slot(s) interrupted by a stop are queued again", n);
      }
    }
  }

  /**
   * Step API: runs every slot that can run now on the calling thread, until none is left.
   *
   * @return how many slots ran
   */
  int runPending() {
    int total = 0;
    for (int n; (n = pass()) > 0; ) {
      total += n;
    }
    return total;
  }

  /**
   * The thread: a pass whenever woken, until stopped. It also looks every {@link #POLL} in cluster
   * mode (another instance's backfill, a dead instance's claim), after a failure, and while a
   * write-back waits for a retry; one instance alone is woken by {@code backfill()} and {@code
   * resume()}, the only ways its runnable slots change.
   */
  @Override
  public void run() {
    boolean timed = true; // the first pass (at start) continues what a restart left
    while (awaitWork(timed)) {
      try {
        while (!closing.getAsBoolean() && pass() > 0) {
          // a job's next slot is offered once the one before is done: pass again
        }
        timed = cluster != null || !unwritten.isEmpty();
      } catch (RuntimeException e) {
        log.warn("backfill pass failed; retrying in {}", POLL, e);
        timed = true;
      }
    }
  }

  /** Waits until woken (or, if timed, the poll interval passed); false once stopped. */
  private boolean awaitWork(boolean timed) {
    lock.lock();
    try {
      long left = POLL.toNanos();
      while (!signalled && !stopped && left > 0) {
        if (timed) {
          left = work.awaitNanos(left);
        } else {
          work.await();
        }
      }
      signalled = false;
      return !stopped;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** A pass may find new work (a backfill queued, a job resumed). */
  void wake() {
    lock.lock();
    try {
      signalled = true;
      work.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Stops the thread after its current run. */
  void stop() {
    lock.lock();
    try {
      stopped = true;
      work.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** One pass: at most one slot of each job. Returns how many ran. */
  private int pass() {
    JobStore store = config.store();
    retryUnwritten();
    if (cluster != null && System.nanoTime() - nextRelease >= 0) {
      nextRelease = System.nanoTime() + config.cluster().lease().toNanos() / 3;
      List<String> live = cluster.liveInstances(config.cluster().lease());
      if (live.contains(config.instanceId())) { // an answer that includes us is one to trust
        store.releaseBackfill(live);
      }
    }
    int ran = 0;
    for (BackfillSlot slot : store.nextBackfill(PASS)) {
      if (closing.getAsBoolean()) {
        break;
      }
      Optional<JobRecord> job = runnable(slot.key());
      if (job.isEmpty()) {
        continue;
      }
      String handler = job.get().spec().handler();
      if (!dispatcher.takeBackfillPermit(handler)) {
        log.debug(
            "job '{}': backfill slot {} waits for a permit of handler '{}''s concurrency limit",
            slot.key(),
            slot.fireTime(),
            handler);
        continue; // the dispatcher wakes this thread when a permit frees
      }
      try {
        if (claim(slot, job.get())) {
          runOne(job.get(), slot.fireTime(), slot.kind() == BackfillSlot.Kind.RUN);
          ran++;
        }
      } finally {
        dispatcher.releaseBackfillPermit(handler);
      }
    }
    return ran;
  }

  /**
   * Claims the slot; in cluster mode, under the concurrency limit of its handler in the whole
   * cluster (refused while the limit is full there: the slot waits for a later pass).
   */
  private boolean claim(BackfillSlot slot, JobRecord job) {
    String instance = config.instanceId();
    Optional<dev.kairos.ConcurrencyLimit> limit = dispatcher.limitOf(job);
    if (cluster == null || limit.isEmpty()) {
      return config.store().claimBackfill(slot.key(), slot.fireTime(), instance);
    }
    ClusterStore.BackfillClaim answer =
        cluster.claimBackfillWithin(slot.key(), slot.fireTime(), instance, limit.get());
    if (answer == ClusterStore.BackfillClaim.LIMIT_FULL) {
      log.debug(
          "job '{}': backfill slot {} waits: concurrency limit '{}' is full in the cluster",
          slot.key(),
          slot.fireTime(),
          limit.get().name());
    }
    return answer == ClusterStore.BackfillClaim.CLAIMED;
  }

  /** The job, if its slot may run here now. */
  private Optional<JobRecord> runnable(String key) {
    Optional<JobRecord> job;
    try {
      job = config.store().find(key);
    } catch (UnreadableJobException e) {
      if (warned.add(key)) {
        log.warn("job '{}': unreadable, its backfill slots wait: {}", key, e.getMessage());
      }
      return Optional.empty();
    }
    if (job.isEmpty()) {
      return job; // deleted since the pass read its slot, which went with it
    }
    JobRecord r = job.get();
    if (r.state() == JobState.PAUSED) {
      return Optional.empty(); // held until resume()
    }
    if (!config.handlers().containsKey(r.spec().handler())) {
      if (warned.add(key)) {
        log.warn(
            "job '{}': handler '{}' is not registered here; its backfill slots wait for an"
                + " instance that has it",
            key,
            r.spec().handler());
      }
      return Optional.empty();
    }
    return job;
  }

  /**
   * Runs one claimed slot and writes it back. A {@link BackfillSlot.Kind#RUN RUN} slot is a
   * concurrent run ({@code Overlap.allow}) that a crash or a stop cut off: it runs again as what it
   * was, a regular run with {@code recovery()} true, not through the gate (its job allows
   * overlapping runs), and its write-back deletes the slot.
   */
  private void runOne(JobRecord r, Instant fire, boolean recoveredRun) {
    Job job = config.handlers().get(r.spec().handler());
    Instant start = config.time().now();
    BackfillContext ctx =
        new BackfillContext(
            r.key(), r.spec().handler(), r.spec().data(), fire, start, recoveredRun);
    log.debug(
        "job '{}': {} of slot {} starts",
        r.key(),
        recoveredRun ? "recovery of a concurrent run" : "backfill run",
        fire);
    listeners.runStarted(ctx);
    Throwable failure = null;
    RunOutcome outcome = RunOutcome.SUCCESS;
    try {
      if (recoveredRun) {
        job.run(ctx);
      } else {
        gate.backfill(r.key(), () -> job.run(ctx));
      }
    } catch (InterruptedException e) {
      failure = e;
      outcome = closing.getAsBoolean() ? RunOutcome.INTERRUPTED : RunOutcome.FAILURE;
    } catch (Throwable t) { // a job's failure must not end the backfill thread
      failure = t;
      outcome = RunOutcome.FAILURE;
    }
    boolean interrupted = Thread.interrupted(); // a store call must not see the flag
    Instant end = config.time().now();
    Duration took = Duration.between(start, end);
    if (failure == null) {
      listeners.runSucceeded(ctx, took.isNegative() ? Duration.ZERO : took);
    } else {
      log.warn(
          "job '{}': backfill run of slot {} failed", r.key(), fire, Failures.loggable(failure));
      listeners.runFailed(ctx, failure, false);
    }
    if (outcome == RunOutcome.INTERRUPTED) {
      // Cut off by close(): the claim stays, so the slot runs again after a restart (the
      // claim is given back at start) or on another instance (once this one is no longer live).
      log.info("job '{}': backfill run of slot {} interrupted by close; runs again", r.key(), fire);
      Thread.currentThread().interrupt();
      return;
    }
    String error = JobRules.errorText(failure);
    RunRecord run =
        new RunRecord(
            r.key(),
            fire,
            start,
            end,
            outcome,
            error,
            1,
            config.instanceId(),
            recoveredRun,
            0,
            !recoveredRun);
    write(run);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void write(RunRecord run) {
    try {
      boolean done =
          run.recovery() // only a RUN slot's run is a recovery (see runOne)
              ? config.store().finishConcurrentRun(run, config.instanceId())
              : config.store().finishBackfill(run, config.instanceId());
      if (!done) {
        log.debug(
            "job '{}': backfill slot {} was released or deleted during its run",
            run.key(),
            run.scheduledFireTime());
      }
    } catch (RuntimeException e) {
      log.warn(
          "job '{}': writing back backfill slot {} failed; retried at the next pass",
          run.key(),
          run.scheduledFireTime(),
          e);
      unwritten.add(run);
    }
  }

  private void retryUnwritten() {
    List<RunRecord> again = List.copyOf(unwritten);
    unwritten.clear();
    again.forEach(this::write);
  }

  /** Stops the thread and waits for it until the deadline (System.nanoTime()). */
  static void join(Thread t, long deadlineNanos) {
    try {
      TimeUnit.NANOSECONDS.timedJoin(t, Math.max(1, deadlineNanos - System.nanoTime()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The {@link JobContext} of a run from a slot: first attempt, nothing missed; a backfill run, or
   * (recovery) a concurrent run run again after a crash.
   */
  record BackfillContext(
      String key,
      String handler,
      Optional<String> data,
      Instant scheduledFireTime,
      Instant actualStart,
      boolean recovery)
      implements JobContext {
    @Override
    public int attempt() {
      return 1;
    }

    @Override
    public int missedFires() {
      return 0;
    }

    @Override
    public boolean backfill() {
      return !recovery;
    }
  }
}
