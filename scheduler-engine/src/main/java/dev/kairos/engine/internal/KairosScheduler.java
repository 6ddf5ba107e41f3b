package dev.kairos.engine.internal;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.KairosException;
import dev.kairos.RunRecord;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerStats;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Scheduler}: wires the store, the {@link Dispatcher} and the workers, and applies
 * schedule changes to the store first and to the heap second.
 *
 * <p>Changes (schedule, pause, resume, trigger, unschedule) and window loads are serialized by one
 * {@link #changes} lock, so a load can never re-insert a job a change just removed. The fire path
 * does not take that lock.
 */
public final class KairosScheduler implements Scheduler {
  private static final Logger log = LoggerFactory.getLogger(KairosScheduler.class);

  private final EngineConfig config;
  private final Dispatcher dispatcher;
  private final FireRunner runner;
  private final SpecValidator validator;
  private final ReentrantLock changes = new ReentrantLock();
  private final List<Thread> workers = new ArrayList<>();
  private final Set<String> warnedHandlers = ConcurrentHashMap.newKeySet();
  private final Runnable wake;
  private final StoreHealth health = new StoreHealth();

  /** Cluster mode's sync thread and its task, or null in single-instance mode. */
  private ClusterSync clusterSync;

  private Thread clusterThread;
  private final AtomicInteger state = new AtomicInteger(NEW);
  private volatile boolean closing;

  private static final int NEW = 0;
  private static final int OPEN = 1;
  private static final int STARTED = 2;
  private static final int CLOSED = 3;

  /** A scheduler over the given configuration; nothing runs until {@link #start()}. */
  public KairosScheduler(EngineConfig config) {
    this.config = config;
    this.dispatcher = new Dispatcher(config.time(), config.windowSize());
    this.runner =
        new FireRunner(
            config, dispatcher, new Listeners(config.listeners()), () -> closing, health);
    this.validator = new SpecValidator(config.handlers().keySet(), config.defaultZone());
    this.wake = dispatcher::wake;
  }

  @Override
  public synchronized void start() {
    open();
    if (state.compareAndSet(OPEN, STARTED)) {
      for (int i = 0; i < config.workers(); i++) {
        Thread t = config.threadFactory().newThread(this::work);
        workers.add(t);
        t.start();
      }
      if (clusterSync != null) {
        clusterThread = new Thread(clusterSync, "kairos-cluster-" + config.instanceId());
        clusterThread.setDaemon(true);
        clusterThread.start();
      }
      log.info(
          "Kairos started: instance {}, {} worker(s), store {}, clock {}, look-ahead {},"
              + " window {}, grace {}, default zone {}, handlers {}",
          config.instanceId(),
          config.workers(),
          config.store(),
          config.time(),
          config.lookAhead(),
          config.windowSize(),
          config.gracePeriod(),
          config.defaultZone(),
          config.handlers().keySet());
    }
  }

  /**
   * Opens the store and loads the first window without starting workers: the step API ({@link
   * #runDue()}) then drives the scheduler from the calling thread. {@link #start()} calls it.
   */
  public synchronized void open() {
    if (state.get() == CLOSED) {
      throw new IllegalStateException("scheduler is closed");
    }
    if (state.compareAndSet(NEW, OPEN)) {
      config.store().open();
      config.time().addListener(wake);
      if (config.store() instanceof ClusterStore cs && cs.clustered()) {
        cs.register(config.instanceId());
        clusterSync = new ClusterSync(cs, dispatcher, changes, config, health);
      }
      loadWindow();
    }
  }

  private void work() {
    try {
      for (; ; ) {
        Entry e = dispatcher.take();
        if (e == null) {
          return;
        }
        if (e == Dispatcher.LOAD) {
          loadWindow();
        } else {
          runner.fire(e);
        }
      }
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt(); // exit: only close() interrupts workers
    }
  }

  /**
   * Step API for tests: runs, on the calling thread, every fire due at the time source's current
   * instant (including fires that become due while running, such as make-up fires), loading windows
   * as needed.
   *
   * @return how many entries were processed
   */
  public int runDue() {
    open();
    int n = 0;
    for (Entry e; (e = dispatcher.poll()) != null; ) {
      if (e == Dispatcher.LOAD) {
        loadWindow();
      } else {
        runner.fire(e);
        n++;
      }
    }
    return n;
  }

  /** When the scheduler next has work: a due fire or a window load (step API). */
  public Optional<Instant> nextDue() {
    return Optional.ofNullable(dispatcher.nextWakeUp());
  }

  /** Loads the jobs due within the look-ahead horizon that the heap does not hold yet. */
  void loadWindow() {
    changes.lock();
    Instant now = config.time().now();
    try {
      Instant until = Timetables.plus(now, config.lookAhead());
      WindowCursor after = dispatcher.beginLoad(until);
      List<JobRecord> rows = config.store().due(after, until, config.windowSize());
      List<JobRecord> runnable = rows.stream().filter(this::hasHandler).toList();
      Instant nextLoad = Timetables.plus(now, config.lookAhead().dividedBy(2));
      dispatcher.endLoad(runnable, until, rows.size() >= config.windowSize(), nextLoad);
      log.debug("loaded {} due job(s) until {}", runnable.size(), until);
    } catch (RuntimeException ex) {
      log.warn("loading due jobs from the store failed; retrying in 1 s", ex);
      dispatcher.abortLoad(now.plusSeconds(1));
    } finally {
      changes.unlock();
    }
  }

  private boolean hasHandler(JobRecord r) {
    if (config.handlers().containsKey(r.spec().handler())) {
      return true;
    }
    if (warnedHandlers.add(r.key())) {
      log.warn(
          "job '{}': handler '{}' is not registered in this process; the job is left in"
              + " the store and not fired here",
          r.key(),
          r.spec().handler());
    }
    return false;
  }

  // ---- changes -------------------------------------------------------------------------------

  @Override
  public JobInfo schedule(JobSpec spec) {
    JobSpec valid = validator.validate(spec);
    checkNotClosed();
    changes.lock();
    try {
      Instant now = config.time().now();
      Instant first = Timetables.of(valid).first(now).orElse(null);
      Upsert u = config.store().upsert(JobRecord.fresh(valid, first));
      if (u.change() != Upsert.Change.UNCHANGED) {
        dispatcher.changed(valid.key(), u.record());
      }
      log.debug(
          "job '{}' {}: {}, next fire {}",
          valid.key(),
          u.change().name().toLowerCase(java.util.Locale.ROOT),
          valid.schedule(),
          u.record().nextFireTime());
      return u.record().toInfo();
    } finally {
      changes.unlock();
    }
  }

  @Override
  public Optional<JobInfo> job(String key) {
    return config.store().find(key).map(JobRecord::toInfo);
  }

  @Override
  public List<JobInfo> jobs() {
    return config.store().findAll().stream().map(JobRecord::toInfo).toList();
  }

  @Override
  public boolean pause(String key) {
    return change(
        key,
        r ->
            r.state() == JobState.PAUSED || r.state() == JobState.COMPLETE
                ? r
                : r.withSchedule(JobState.PAUSED, r.nextFireTime(), null, FireKind.TIMETABLE, 1));
  }

  @Override
  public boolean resume(String key) {
    return change(
        key,
        r ->
            r.state() != JobState.PAUSED
                ? r
                : r.withSchedule(
                    JobState.SCHEDULED, r.nextFireTime(), r.nextFireTime(), FireKind.TIMETABLE, 1));
  }

  @Override
  public boolean triggerNow(String key) {
    changes.lock();
    try {
      if (dispatcher.triggerIfRunning(key)) {
        return config.store().find(key).isPresent();
      }
      Instant now = config.time().now();
      return change(
          key,
          r ->
              r.withSchedule(
                  r.state() == JobState.RUNNING ? JobState.SCHEDULED : r.state(),
                  r.nextFireTime(),
                  now,
                  FireKind.TRIGGER,
                  1));
    } finally {
      changes.unlock();
    }
  }

  @Override
  public boolean unschedule(String key) {
    checkNotClosed();
    changes.lock();
    try {
      boolean deleted = config.store().delete(key);
      if (deleted) {
        dispatcher.changed(key, null);
        log.debug("job '{}' unscheduled", key);
      }
      return deleted;
    } finally {
      changes.unlock();
    }
  }

  /** Applies a change of schedule state with compare-and-set, retrying if a write-back raced. */
  private boolean change(String key, UnaryOperator<JobRecord> how) {
    checkNotClosed();
    changes.lock();
    try {
      for (; ; ) {
        Optional<JobRecord> current = config.store().find(key);
        if (current.isEmpty()) {
          return false;
        }
        JobRecord r = current.get();
        JobRecord wanted = how.apply(r);
        if (wanted == r) {
          return true;
        }
        Optional<JobRecord> stored = config.store().replace(wanted, r.version());
        if (stored.isPresent()) {
          dispatcher.changed(key, stored.get());
          return true;
        }
      }
    } finally {
      changes.unlock();
    }
  }

  @Override
  public List<RunRecord> history(String key, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("history limit must not be negative: " + limit);
    }
    return config.store().history(key, limit);
  }

  private void checkNotClosed() {
    if (state.get() == CLOSED || closing) {
      throw new KairosException("scheduler is closed");
    }
  }

  // ---- close ---------------------------------------------------------------------------------

  @Override
  public synchronized void close() {
    if (state.getAndSet(CLOSED) == CLOSED) {
      return;
    }
    closing = true;
    dispatcher.shutdown();
    config.time().removeListener(wake);
    long graceNanos = config.gracePeriod().toNanos();
    long deadline = System.nanoTime() + graceNanos;
    joinUntil(deadline);
    List<String> stillRunning = dispatcher.runningKeys();
    if (workers.stream().anyMatch(Thread::isAlive)) {
      log.warn(
          "grace period {} over; interrupting running job(s) {}",
          config.gracePeriod(),
          stillRunning);
      workers.forEach(Thread::interrupt);
      joinUntil(System.nanoTime() + graceNanos + TimeUnit.SECONDS.toNanos(5));
    }
    stopClusterSync();
    List<String> stuck = workers.stream().filter(Thread::isAlive).map(Thread::getName).toList();
    if (!stuck.isEmpty()) {
      log.error("worker thread(s) {} ignored interruption and are still running", stuck);
    }
    try {
      config.store().close();
    } catch (Exception ex) {
      log.warn("closing the store failed", ex);
    }
    log.info("Kairos instance {} closed", config.instanceId());
  }

  private void stopClusterSync() {
    if (clusterSync == null) {
      return;
    }
    clusterSync.stop();
    if (clusterThread != null) {
      clusterThread.interrupt();
      try {
        clusterThread.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else {
      clusterSync.run(); // never started (step API): just deregister
    }
  }

  /**
   * Step API in cluster mode: reads the change feed and applies it, on the calling thread. Does
   * nothing in single-instance mode.
   */
  public void syncCluster() {
    if (clusterSync != null) {
      clusterSync.applyChanges();
    }
  }

  private void joinUntil(long deadlineNanos) {
    for (Thread t : workers) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        TimeUnit.NANOSECONDS.timedJoin(t, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Instrumentation for tests: the most workers ever waiting timed at once. */
  int maxTimedWaiters() {
    return dispatcher.maxTimedWaiters();
  }

  /**
   * For tests: this instance stops heartbeating and renewing its leases, as if its process had
   * frozen; its workers go on.
   */
  void stopClusterSyncForTest() {
    if (clusterSync != null) {
      clusterSync.stop();
      clusterThread.interrupt();
    }
  }

  /** Instrumentation for tests: keys of running jobs. */
  @Override
  public SchedulerStats stats() {
    return new SchedulerStats(
        dispatcher.queued(), dispatcher.running(), config.workers(), !health.isDown());
  }

  List<String> runningKeys() {
    return dispatcher.runningKeys();
  }

  /** Instrumentation for tests: entries in the heap. */
  int queued() {
    return dispatcher.queued();
  }
}
