package dev.kairos.engine.internal;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunRecord;
import dev.kairos.Schedule;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerStats;
import dev.kairos.StoreException;
import dev.kairos.StoreSetupException;
import dev.kairos.UnreadableJob;
import dev.kairos.UnreadableJobException;
import dev.kairos.engine.CallerTransactions;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
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
 *
 * <p>Shutdown: workers are daemon threads, and while the scheduler runs a non-daemon keep-alive
 * thread holds the JVM; {@link #close()} ends it. So a handler that never returns, even when
 * interrupted, cannot keep the JVM from exiting after {@code close()}, which returns within the
 * grace period plus {@link #INTERRUPT_WAIT} (plus the time the store takes to close).
 */
public final class KairosScheduler implements Scheduler {
  private static final Logger log = LoggerFactory.getLogger(KairosScheduler.class);
  private static final Duration FIRST_STARTUP_BACKOFF = Duration.ofMillis(100);
  private static final Duration MAX_STARTUP_BACKOFF = Duration.ofSeconds(5);

  /**
   * How long {@link #close()} waits, after the grace period, for interrupted workers (and the
   * cluster sync thread) to stop before it reports them and returns: 5 seconds.
   */
  public static final java.time.Duration INTERRUPT_WAIT = java.time.Duration.ofSeconds(5);

  /**
   * Writer threads of the write-back queue (a store that batches runs, single-instance mode): one
   * writes a batch while the next gathers, so a commit's latency overlaps the next batch's wait.
   */
  static final int WRITE_BACK_THREADS = 2;

  /** Holds the JVM while the scheduler runs (its workers are daemon threads); close() ends it. */
  private final java.util.concurrent.CountDownLatch keepAlive =
      new java.util.concurrent.CountDownLatch(1);

  private final EngineConfig config;
  private final Dispatcher dispatcher;
  private final FireRunner runner;

  /** The application's listeners, each call guarded. */
  private final Listeners listeners;

  private final Backfills backfills;

  /** Runs the queued backfill slots; null before start(). */
  private Thread backfillThread;

  private final SpecValidator validator;
  private final ReentrantLock changes = new ReentrantLock();
  private final List<Thread> workers = new ArrayList<>();

  /** The thread of a run that called {@link #close()}, which finishes the close; else null. */
  private volatile Thread closer;

  /** The thread a close called from a writer or the cluster thread goes on on; else null. */
  private volatile Thread closeThread;

  /** Counted down when a close has ended: threads stopped, store closed. */
  private final java.util.concurrent.CountDownLatch closed =
      new java.util.concurrent.CountDownLatch(1);

  private final Set<String> warnedHandlers = ConcurrentHashMap.newKeySet();

  /** Jobs the store returned but {@link JobRules} refuses at load time: key → reason. */
  private final Map<String, String> refused = new ConcurrentHashMap<>();

  /**
   * Keys whose store write failed with its outcome unknown (the commit may have gone through, its
   * answer lost) and whose row could not be read back either: the heap may disagree with the store
   * about them until {@link #settle} reads them again, at the next window load or change.
   */
  private final Set<String> unsettled = ConcurrentHashMap.newKeySet();

  /** First read-again delay of a job dropped after an unexpected engine failure. */
  static final Duration DROPPED_FIRST_DELAY = Duration.ofSeconds(1);

  /** Longest read-again delay of a job dropped after unexpected engine failures in a row. */
  static final Duration DROPPED_MAX_DELAY = Duration.ofMinutes(5);

  /**
   * Jobs dropped after an unexpected engine failure: how often in a row (a failure more than twice
   * {@link #DROPPED_MAX_DELAY} after the last counts as the first again; such entries are pruned
   * once there are 64) and when the last was.
   */
  private final Map<String, Dropped> dropped = new ConcurrentHashMap<>();

  private record Dropped(int times, Instant last) {}

  private final Runnable wake;
  private final StoreHealth health = new StoreHealth();

  /**
   * Cluster mode's sync thread and its task, or null in single-instance mode. Written once by
   * open(); volatile for stats(), which may be called from any thread.
   */
  private volatile ClusterSync clusterSync;

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
    this.dispatcher = new Dispatcher(config.time(), config.windowSize(), config.limits());
    if (config.callerTransactions() != CallerTransactions.NONE) {
      dispatcher.trackBatches(); // a change in a caller's transaction waits for them: see changing
    }
    if (!clustered()) { // a claim tells a cluster's recoveries
      dispatcher.recoverStartsNotEnded();
    }
    this.listeners = new Listeners(config.listeners());
    this.runner = new FireRunner(config, dispatcher, listeners, () -> closing, health, changes);
    runner.onDropped(this::readAgainAfterFailure);
    this.backfills = new Backfills(config, listeners, runner.gate, dispatcher, () -> closing);
    dispatcher.onPermitFreed(backfills::wake);
    this.validator =
        new SpecValidator(
            config.handlers().keySet(),
            config.defaultZone(),
            config.store().supportsConcurrentRuns(),
            config.store()::unholdable);
    this.wake = dispatcher::wake;
  }

  @Override
  public synchronized void start() {
    open();
    if (state.get() == OPEN) {
      List<Thread> made = newWorkers(); // before any thread starts: a bad factory leaves none
      if (!state.compareAndSet(OPEN, STARTED)) {
        return;
      }
      Thread holder = new Thread(this::holdJvm, "kairos-keepalive-" + config.instanceId());
      holder.setDaemon(false);
      holder.start();
      runner.startWriteBackQueue(WRITE_BACK_THREADS);
      for (Thread t : made) {
        workers.add(t);
        t.start();
      }
      backfillThread =
          new Thread(thenFinishClose(backfills), "kairos-backfill-" + config.instanceId());
      backfillThread.setDaemon(true);
      backfillThread.start();
      if (clusterSync != null) {
        clusterThread = new Thread(clusterSync, "kairos-cluster-" + config.instanceId());
        clusterThread.setDaemon(true);
        clusterThread.start();
      }
      log.info(
          "Kairos started: instance {}, {} worker(s), store {}, clock {}, look-ahead {},"
              + " window {}, grace {}, default zone {}, handlers {}, concurrency limits {}",
          config.instanceId(),
          config.workers(),
          config.store(),
          config.time(),
          config.lookAhead(),
          config.windowSize(),
          config.gracePeriod(),
          config.defaultZone(),
          config.handlers().keySet(),
          config.limits().stream().map(l -> l.name() + "=" + l.permits() + l.handlers()).toList());
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
      try {
        openStore();
      } catch (RuntimeException e) {
        state.compareAndSet(OPEN, NEW); // open() or start() may be called again
        throw e;
      }
      config.time().addListener(wake);
      if (config.store() instanceof ClusterStore cs && cs.clustered()) {
        clusterSync =
            new ClusterSync(
                cs,
                dispatcher,
                changes,
                config,
                health,
                r -> queueable(r, config.time().now()),
                listeners);
      }
      loadWindow();
    }
  }

  /**
   * Opens the store (and registers this instance in cluster mode), then releases the backfill slots
   * a stop interrupted and reads the calendars, retrying a {@link StoreException} of any of these
   * with backoff, in real time, until the startup timeout runs out (not a {@link
   * StoreSetupException} nor an {@link UnreadableJobException}: waiting mends neither, so they fail
   * at once). The store is opened once: a retry after it opened only reads again. Before, a
   * connection lost after the open made {@code start()} throw at once, half started.
   */
  private void openStore() {
    TimeSource real = TimeSource.system();
    Instant deadline = Timetables.plus(real.now(), config.startupTimeout());
    Duration backoff = FIRST_STARTUP_BACKOFF;
    boolean opened = false;
    for (int attempt = 1; ; attempt++) {
      try {
        if (!opened) {
          config.store().open();
          String problem = config.store().unholdable(config.instanceId());
          if (problem != null) {
            throw new IllegalStateException(
                "instance id '"
                    + config.instanceId()
                    + "' "
                    + problem
                    + ": every run is written with it; choose one the store can hold"
                    + " (Kairos.Builder.instanceId)");
          }
          if (config.store() instanceof ClusterStore cs && cs.clustered()) {
            cs.register(config.instanceId());
          }
          opened = true;
        }
        backfills.recover();
        runner.calendars.replaceAll(config.store().calendars());
        if (attempt > 1) {
          log.info("store {} opened at attempt {}", config.store(), attempt);
        }
        return;
      } catch (UnreadableJobException | StoreSetupException e) {
        throw e; // waiting cannot mend these
      } catch (StoreException e) {
        Instant now = real.now();
        if (!now.plus(backoff).isBefore(deadline)) {
          throw new StoreException(
              "store "
                  + config.store()
                  + " did not open within the startup timeout of "
                  + config.startupTimeout()
                  + " ("
                  + attempt
                  + " attempt(s)); last failure: "
                  + describe(e),
              e);
        }
        if (attempt == 1) {
          log.warn(
              "store {} failed to open; retrying with backoff for up to {}",
              config.store(),
              config.startupTimeout(),
              e);
        } else {
          log.debug("store still failing to open (attempt {}): {}", attempt, e.toString());
        }
        if (!health.pause(backoff)) {
          throw new StoreException("interrupted while waiting for store " + config.store(), e);
        }
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_STARTUP_BACKOFF) > 0
                ? MAX_STARTUP_BACKOFF
                : backoff.multipliedBy(2);
      }
    }
  }

  private void holdJvm() {
    for (; ; ) {
      try {
        keepAlive.await();
        return;
      } catch (InterruptedException e) {
        // only close() ends the keep-alive
      }
    }
  }

  private void work() {
    FireRunner.Finish left = null; // the last run's entry, to finish with the next take
    try {
      for (; ; ) {
        FireRunner.Finish done = left;
        left = null; // from here on finishAndTake (or finishTriggered) owns it
        Entry e =
            done == null
                ? dispatcher.take()
                : dispatcher.finishAndTake(done.entry(), done.stored());
        if (e == Dispatcher.TRIGGERED) {
          runner.finishTriggered(done);
          e = dispatcher.take();
        }
        if (e == null) {
          return;
        }
        if (e == Dispatcher.LOAD) {
          loadWindow();
        } else {
          left = runner.fireLeavingFinish(e); // returns normally or has finished e itself
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

  /**
   * Step API for tests: runs, on the calling thread, every queued backfill slot that can run now
   * (of jobs not paused, with a registered handler), each job's in order.
   *
   * @return how many slots ran
   */
  public int runBackfill() {
    open();
    return backfills.runPending();
  }

  /** When the scheduler next has work: a due fire or a window load (step API). */
  public Optional<Instant> nextDue() {
    return Optional.ofNullable(dispatcher.nextWakeUp());
  }

  /**
   * Most rows one window load reads: a larger window is read in pages of this size, one load after
   * another while fewer than half a window is queued (see {@link Dispatcher#take()}), so the first
   * fire after a start waits for one page and the change lock is never held for a whole window.
   */
  static final int LOAD_PAGE = 1_000;

  /** Loads the jobs due within the look-ahead horizon that the heap does not hold yet. */
  void loadWindow() {
    changes.lock();
    Instant now = config.time().now();
    try {
      settle();
      Instant until = Timetables.plus(now, config.lookAhead());
      WindowCursor after = dispatcher.beginLoad(until);
      runner.calendars.replaceAll(config.store().calendars());
      int limit = Math.min(config.windowSize(), LOAD_PAGE);
      List<JobRecord> rows = config.store().due(after, until, limit);
      List<JobRecord> runnable = rows.stream().filter(r -> queueable(r, now)).toList();
      Instant nextLoad = Timetables.plus(now, config.lookAhead().dividedBy(2));
      WindowCursor lastRead = rows.size() >= limit ? rows.get(rows.size() - 1).cursor() : null;
      dispatcher.endLoad(runnable, until, lastRead, nextLoad);
      log.debug("loaded {} due job(s) until {}", runnable.size(), until);
    } catch (RuntimeException ex) {
      log.warn("loading due jobs from the store failed; retrying in 1 s", ex);
      dispatcher.abortLoad(now.plusSeconds(1));
    } finally {
      changes.unlock();
    }
  }

  /**
   * False, after logging once, for a record that breaks {@link JobRules} at {@code now} (a store
   * without checks of its own, or the catch-up rule, which depends on the time): it is not fired
   * and is listed by {@link #unreadable()}.
   */
  private boolean readable(JobRecord r, Instant now) {
    String problem = problem(r, now);
    if (problem == null) {
      refused.remove(r.key());
      return true;
    }
    if (refused.put(r.key(), problem) == null) {
      log.warn("job '{}': refused, not fired and left in the store as it is: {}", r.key(), problem);
    }
    return false;
  }

  /**
   * Why a record is refused at {@code now}: a broken {@link JobRules} rule, a cron expression that
   * does not parse or never fires (what {@code schedule()} refuses, checked here because only the
   * engine parses cron), or a calendar that does not exist; null if none.
   */
  private String problem(JobRecord r, Instant now) {
    String problem = JobRules.problem(r, now);
    if (problem == null && r.spec().schedule() instanceof Schedule.Cron c) {
      problem = CronTimetable.problem(r.key(), c);
    }
    return problem != null ? problem : runner.calendars.problem(r.spec());
  }

  /**
   * Whether a row read from the store may be queued here: readable at {@code now} and its handler
   * registered here. Judged for window loads and for the cluster's overdue sweep alike.
   */
  private boolean queueable(JobRecord r, Instant now) {
    return readable(r, now) && hasHandler(r);
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
    Objects.requireNonNull(spec, "spec must not be null");
    JobSpec valid = validator.validate(spec);
    checkNotClosed();
    changes.lock();
    try {
      requireCalendars(List.of(valid));
      Instant now = config.time().now();
      Instant first = runner.calendars.timetable(valid).first(now).orElse(null);
      settle();
      Upsert u;
      List<String> keys = List.of(valid.key());
      boolean inCallers = changing(keys);
      try {
        try {
          u = config.store().upsert(fresh(valid, first));
        } catch (IllegalStateException e) {
          throw forgetCalendarsOnRefusal(e);
        } catch (RuntimeException e) {
          throw writeFailed(valid.key(), e);
        }
        refused.remove(valid.key());
        if (u.change() != Upsert.Change.UNCHANGED) {
          toHeap(
              keys,
              () -> dispatcher.changed(valid.key(), u.record()),
              () -> markGoingRuns(List.of(u.record())));
        }
      } finally {
        dispatcher.changeEnded(keys, inCallers);
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

  /**
   * Refuses specs whose calendar does not exist (read again from the store once, for one another
   * instance stored), naming each key and calendar. Call with the changes lock held.
   */
  private void requireCalendars(List<JobSpec> specs) {
    List<String> problems = missingCalendars(specs);
    if (!problems.isEmpty()) {
      runner.calendars.replaceAll(config.store().calendars());
      problems = missingCalendars(specs);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          String.join("; ", problems.subList(0, Math.min(problems.size(), 50)))
              + (problems.size() > 50 ? "; and " + (problems.size() - 50) + " more" : "")
              + ": store it with putCalendar first");
    }
  }

  /**
   * The store refused an upsert with {@code refusal}, which may be a calendar another instance
   * removed after {@link #requireCalendars} found it here ({@link JobRules#calendarGone}): reads
   * the calendars again, so that the next call on that calendar is refused here, before the store,
   * as for any unknown calendar (else the cache would keep the calendar until the next window
   * load). Call with the changes lock held; returns {@code refusal}, with a failure of the read
   * added to it.
   */
  private IllegalStateException forgetCalendarsOnRefusal(IllegalStateException refusal) {
    try {
      runner.calendars.replaceAll(config.store().calendars());
    } catch (RuntimeException e) {
      refusal.addSuppressed(e);
    }
    return refusal;
  }

  private List<String> missingCalendars(List<JobSpec> specs) {
    List<String> out = new ArrayList<>();
    for (JobSpec spec : specs) {
      String problem = runner.calendars.problem(spec);
      if (problem != null) {
        out.add(problem);
      }
    }
    return out;
  }

  // ---- calendars -----------------------------------------------------------------------------

  @Override
  public void putCalendar(String name, dev.kairos.BusinessCalendar calendar) {
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(calendar, "calendar must not be null");
    JobRules.checkCalendar(name, calendar);
    checkNotClosed();
    changes.lock();
    try {
      Optional<dev.kairos.BusinessCalendar> before = runner.calendars.get(name);
      config.store().putCalendar(name, calendar);
      runner.calendars.put(name, calendar);
      log.debug("calendar '{}' stored: {}", name, calendar);
      if (before.filter(calendar::equals).isPresent()) {
        return;
      }
      Instant now = config.time().now();
      for (JobRecord r : config.store().findAll()) {
        if (r.spec().calendar().filter(name::equals).isPresent()) {
          change(r.key(), x -> recomputed(x, runner.calendars.timetable(x.spec()), now));
        }
      }
    } finally {
      changes.unlock();
    }
  }

  /**
   * The record after its calendar changed: the next timetable fire recomputed under it, from the
   * last fire (or, before the first, by settling the current next fire). A fire the new calendar
   * allows that is already past, where the job was not behind, is passed over rather than made a
   * misfire. Running jobs (their write-back reads the new calendar), retries, triggers and
   * completed jobs are left as they are.
   */
  static JobRecord recomputed(JobRecord r, Timetable tt, Instant now) {
    boolean timetable = r.dueKind() == FireKind.TIMETABLE || r.dueTime() == null;
    if (!timetable
        || r.nextFireTime() == null
        || r.state() == JobState.COMPLETE
        || r.state() == JobState.RUNNING) {
      return r;
    }
    Instant last = r.lastScheduledFireTime();
    Optional<Instant> next =
        last != null
            ? tt.successor(last)
            : tt instanceof CalendarTimetable c
                ? c.settle(r.nextFireTime())
                : Optional.of(r.nextFireTime());
    if (!r.nextFireTime().isBefore(now)) {
      for (int i = 0; i < Timetable.WALK_CAP && next.isPresent() && next.get().isBefore(now); i++) {
        next = tt.successor(next.get());
      }
    }
    Instant n = next.orElse(null);
    if (Objects.equals(n, r.nextFireTime())) {
      return r;
    }
    if (r.state() == JobState.PAUSED) {
      return r.withSchedule(JobState.PAUSED, n, null, FireKind.TIMETABLE, 1);
    }
    return r.withSchedule(
        n == null ? JobState.COMPLETE : JobState.SCHEDULED,
        n,
        Jitter.due(r.spec(), n),
        FireKind.TIMETABLE,
        1);
  }

  @Override
  public Optional<dev.kairos.BusinessCalendar> calendar(String name) {
    Objects.requireNonNull(name, "name must not be null");
    checkNotClosed();
    return Optional.ofNullable(config.store().calendars().get(name));
  }

  @Override
  public java.util.SortedMap<String, dev.kairos.BusinessCalendar> calendars() {
    checkNotClosed();
    return java.util.Collections.unmodifiableSortedMap(config.store().calendars());
  }

  @Override
  public boolean removeCalendar(String name) {
    Objects.requireNonNull(name, "name must not be null");
    checkNotClosed();
    changes.lock();
    try {
      boolean deleted = config.store().deleteCalendar(name);
      runner.calendars.remove(name);
      return deleted;
    } finally {
      changes.unlock();
    }
  }

  @Override
  public Optional<JobInfo> job(String key) {
    requireKey(key);
    checkNotClosed();
    return config.store().find(key).map(JobRecord::toInfo);
  }

  @Override
  public List<JobInfo> jobs() {
    checkNotClosed();
    return config.store().findAll().stream().map(JobRecord::toInfo).toList();
  }

  @Override
  public boolean pause(String key) {
    checkNotClosed();
    changes.lock();
    try {
      // A trigger requested during a run is dropped first, so the worker cannot arm it after the
      // pause is stored; a pending trigger in the store is cleared by the change itself.
      dispatcher.cancelTriggerRequest(key);
      return change(key, KairosScheduler::paused);
    } finally {
      changes.unlock();
    }
  }

  /** The record after {@code pause}: nothing due until resumed (a pending trigger included). */
  static JobRecord paused(JobRecord r) {
    boolean settled = r.state() == JobState.PAUSED || r.state() == JobState.COMPLETE;
    if (settled && r.dueTime() == null) {
      return r;
    }
    JobState s = r.state() == JobState.COMPLETE ? JobState.COMPLETE : JobState.PAUSED;
    return r.withSchedule(s, r.nextFireTime(), null, FireKind.TIMETABLE, 1);
  }

  /** The record after {@code resume}: due at its next timetable fire, or complete if none. */
  static JobRecord resumed(JobRecord r) {
    if (r.state() != JobState.PAUSED) {
      return r;
    }
    Instant next = r.nextFireTime();
    return r.withSchedule(
        next == null ? JobState.COMPLETE : JobState.SCHEDULED,
        next,
        Jitter.due(r.spec(), next),
        FireKind.TIMETABLE,
        1);
  }

  /** A new job's record: first fire {@code first}, due at it plus its jitter. */
  static JobRecord fresh(JobSpec spec, Instant first) {
    JobRecord r = JobRecord.fresh(spec, first);
    Instant due = Jitter.due(spec, first);
    return due == null || due.equals(first)
        ? r
        : r.withSchedule(r.state(), first, due, FireKind.TIMETABLE, 1);
  }

  @Override
  public boolean resume(String key) {
    boolean found = change(key, KairosScheduler::resumed);
    backfills.wake(); // its held backfill slots may run now
    return found;
  }

  @Override
  public int backfill(String key, Instant from, Instant to) {
    requireKey(key);
    Objects.requireNonNull(from, "from must not be null");
    Objects.requireNonNull(to, "to must not be null");
    checkNotClosed();
    changes.lock(); // an unschedule() of the job cannot slip between the read and the write
    try {
      JobRecord job =
          config
              .store()
              .find(key)
              .orElseThrow(
                  () -> new IllegalArgumentException("backfill: no job has the key '" + key + "'"));
      return backfills.queue(job, from, to, config.time().now());
    } finally {
      changes.unlock();
    }
  }

  @Override
  public boolean triggerNow(String key) {
    requireKey(key);
    checkNotClosed();
    changes.lock();
    try {
      // A job running here fires once more after its write-back (its row stays RUNNING, so a crash
      // meanwhile still recovers the run). In cluster mode the trigger goes to the store at once
      // instead: a pause() on another instance must be able to see and cancel it.
      if (!clustered() && dispatcher.triggerIfRunning(key)) {
        runner.hurryWriteBacks(); // the trigger waits for the run's write-back: no linger
        return config.store().find(key).isPresent();
      }
      Instant now = config.time().now();
      return change(key, r -> r.triggered(now));
    } finally {
      changes.unlock();
    }
  }

  private boolean clustered() {
    return config.store() instanceof ClusterStore cs && cs.clustered();
  }

  @Override
  public boolean unschedule(String key) {
    requireKey(key);
    checkNotClosed();
    changes.lock();
    List<String> keys = List.of(key);
    boolean inCallers = changing(keys); // held before the delete, as other changes are
    try {
      // The heap first: a worker whose write-back finds the row already deleted must not re-queue
      // the job from a change it saw before the deletion. If the store then fails, the heap is
      // made to agree with what the store still has.
      dispatcher.changed(key, null);
      boolean deleted;
      try {
        deleted = config.store().delete(key);
      } catch (RuntimeException e) {
        resyncWhenSettled(keys);
        throw e;
      }
      toHeap(keys, () -> {}); // a rollback brings the job back
      refused.remove(key);
      if (deleted) {
        log.debug("job '{}' unscheduled", key);
      }
      return deleted;
    } finally {
      dispatcher.changeEnded(keys, inCallers);
      changes.unlock();
    }
  }

  // ---- bulk changes --------------------------------------------------------------------------

  /** Jobs per store call (one transaction on the JDBC store) of the bulk changes. */
  static final int BATCH_CHUNK = 1000;

  @Override
  public List<JobInfo> scheduleAll(Collection<JobSpec> specs) {
    List<JobSpec> valid = SpecBatch.validate(validator, specs);
    checkNotClosed();
    int parallel =
        config.callerTransactions().mayJoin() ? 1 : Math.max(1, config.store().parallelUpserts());
    List<JobInfo> out = new ArrayList<>(valid.size());
    for (int from = 0; from < valid.size(); from += BATCH_CHUNK * parallel) {
      List<List<JobSpec>> group = new ArrayList<>(parallel);
      for (int i = from; i < valid.size() && group.size() < parallel; i += BATCH_CHUNK) {
        group.add(valid.subList(i, Math.min(valid.size(), i + BATCH_CHUNK)));
      }
      RuntimeException failure = scheduleChunks(group, out);
      if (failure != null) {
        throw partly(failure, "scheduled", out.size(), valid.size(), "specs");
      }
    }
    log.debug("scheduled {} job(s) in a batch", valid.size());
    return out;
  }

  /**
   * Upserts each chunk of {@code group} in one store call, the first on this thread and each other
   * on a thread of its own at the same time, all under the change lock; then applies what the
   * successful calls changed to the heap at once, and adds their jobs to {@code out} (in order, if
   * all succeeded). Returns the first failure (the others suppressed in it), or null; the keys of a
   * failed chunk are read again from the store.
   */
  private RuntimeException scheduleChunks(List<List<JobSpec>> group, List<JobInfo> out) {
    List<String> failedKeys = new ArrayList<>();
    RuntimeException failure = null;
    changes.lock();
    try {
      List<List<JobRecord>> fresh = new ArrayList<>(group.size());
      try {
        Instant now = config.time().now();
        for (List<JobSpec> chunk : group) {
          requireCalendars(chunk);
          List<JobRecord> records = new ArrayList<>(chunk.size());
          for (JobSpec spec : chunk) {
            records.add(fresh(spec, runner.calendars.timetable(spec).first(now).orElse(null)));
          }
          fresh.add(records);
        }
      } catch (RuntimeException e) {
        return e; // nothing written
      }
      List<BulkCall> calls = new ArrayList<>(group.size());
      for (int i = 0; i < fresh.size(); i++) {
        calls.add(new BulkCall(fresh.get(i)));
      }
      List<String> keys = fresh.stream().flatMap(List::stream).map(JobRecord::key).toList();
      boolean inCallers = changing(keys);
      try {
        failure = upsertChunks(calls, failedKeys, out);
      } finally {
        dispatcher.changeEnded(keys, inCallers);
      }
    } finally {
      changes.unlock();
    }
    if (!failedKeys.isEmpty()) {
      resyncWhenSettled(failedKeys);
    }
    return failure;
  }

  /**
   * Runs the calls of {@link #scheduleChunks}, the first here, and applies what they changed to the
   * heap; returns the first failure or null. Call with the change lock held.
   */
  private RuntimeException upsertChunks(
      List<BulkCall> calls, List<String> failedKeys, List<JobInfo> out) {
    RuntimeException failure = null;
    try {
      for (BulkCall call : calls.subList(1, calls.size())) {
        call.start(config.threadFactory());
      }
      calls.get(0).run();
    } finally {
      calls.forEach(BulkCall::await); // before the lock is released, whatever happened here
    }
    List<JobRecord> changed = new ArrayList<>();
    for (BulkCall call : calls) {
      if (call.results == null) {
        call.records.forEach(r -> failedKeys.add(r.key()));
        RuntimeException e = call.failure();
        if (e instanceof IllegalStateException refused) {
          forgetCalendarsOnRefusal(refused);
        }
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
        continue;
      }
      for (Upsert u : call.results) {
        if (u.change() != Upsert.Change.UNCHANGED) {
          changed.add(u.record());
        }
        out.add(u.record().toInfo());
      }
    }
    toHeap(
        changed.stream().map(JobRecord::key).toList(),
        () -> dispatcher.changedAll(changed),
        () -> markGoingRuns(changed));
    return failure;
  }

  /**
   * After an upsert: marks again each redefined job whose run started here is going (its row
   * written back to {@code SCHEDULED} by the new definition, the write-back not yet in it; see
   * {@link #keepsRunMark}), at the version the upsert wrote, so that a crash during that run still
   * re-runs its fire flagged as a recovery. Every write-back increments the version ({@link
   * dev.kairos.spi.RunResult#applyTo}): a write-back that lands first makes this mark miss, as it
   * must. Single-instance mode. For an upsert made in the caller's open transaction the mark is
   * written in that transaction, on the caller's thread, right after the upsert ({@link #toHeap}):
   * it commits with the redefinition, so no crash after the commit finds the run unmarked, and a
   * rollback takes both back. (The JDBC store writes such a mark at once whatever its start-mark
   * delay: a delayed mark's flusher would wait for the caller's row lock, and write-backs for the
   * flusher.) A failure is reported and the run goes on unmarked.
   */
  private void markGoingRuns(List<JobRecord> upserted) {
    if (clustered()) {
      return;
    }
    List<dev.kairos.spi.StartMark> marks = new ArrayList<>();
    for (JobRecord r : upserted) {
      if (r.state() == JobState.SCHEDULED && dispatcher.goingRunStart(r.key(), r) != null) {
        marks.add(new dev.kairos.spi.StartMark(r.key(), r.version()));
      }
    }
    if (marks.isEmpty()) {
      return;
    }
    try {
      config.store().runsStarted(marks);
    } catch (RuntimeException e) {
      log.warn(
          "marking {} run(s) going here again after their jobs were redefined failed",
          marks.size(),
          e);
    }
  }

  /** One {@code upsertAll} call of a bulk change, run here or on a thread of its own. */
  private final class BulkCall implements Runnable {
    final List<JobRecord> records;
    private List<Upsert> results;
    private RuntimeException failure;
    private Thread thread;

    BulkCall(List<JobRecord> records) {
      this.records = records;
    }

    /** Starts the call on a new thread of {@code threads}; here, if the factory gives none. */
    void start(java.util.concurrent.ThreadFactory threads) {
      Thread t = threads.newThread(this);
      if (t == null) {
        run();
        return;
      }
      t.start();
      thread = t;
    }

    @Override
    public void run() {
      try {
        results = config.store().upsertAll(records);
      } catch (RuntimeException e) {
        failure = e;
      }
    }

    /** Why the call has no results: its exception, or an error that ended its thread. */
    RuntimeException failure() {
      return failure != null
          ? failure
          : new StoreException(
              "upserting "
                  + records.size()
                  + " job(s) from '"
                  + records.get(0).key()
                  + "' ended without a result (see the thread's error)");
    }

    /** Waits for the call (uninterruptibly: the change lock is released only after it). */
    void await() {
      if (thread == null) {
        return;
      }
      boolean interrupted = false;
      while (true) {
        try {
          thread.join(); // join's happens-before makes results and failure visible here
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public int unscheduleAll(Collection<String> keys) {
    List<String> distinct = SpecBatch.keys(keys);
    checkNotClosed();
    int deleted = 0;
    for (int from = 0; from < distinct.size(); from += BATCH_CHUNK) {
      List<String> chunk = distinct.subList(from, Math.min(distinct.size(), from + BATCH_CHUNK));
      changes.lock();
      boolean inCallers = changing(chunk); // held before the delete, as unschedule does
      try {
        dispatcher.deletedAll(chunk); // the heap first, as unschedule does
        List<String> gone = config.store().deleteAll(chunk);
        deleted += gone.size();
        toHeap(chunk, () -> {}); // a rollback brings the jobs back
      } catch (RuntimeException e) {
        resyncWhenSettled(chunk);
        throw partly(e, "unscheduled", from, distinct.size(), "keys");
      } finally {
        dispatcher.changeEnded(chunk, inCallers);
        changes.unlock();
      }
    }
    log.debug("unscheduled {} job(s) in a batch of {} key(s)", deleted, distinct.size());
    return deleted;
  }

  /**
   * Applies a change the store has taken to the heap: at once ({@code now}), unless the store call
   * belongs to a transaction of the caller's that is still open ({@link
   * dev.kairos.engine.CallerTransactions}); then the heap reads the keys again when that
   * transaction ends, so it learns of a committed change and of none that was rolled back. Until
   * then the keys are {@linkplain Dispatcher#holdForCaller held}: that transaction has their rows
   * locked.
   */
  private void toHeap(List<String> keys, Runnable now) {
    toHeap(keys, now, null);
  }

  /**
   * {@link #toHeap(List, Runnable)} for a change that also marks a run going here ({@code mark}, if
   * not null; see {@link #markGoingRuns} and {@link #markPausedRun}). The mark is written first, on
   * this thread, in every case: when the change belongs to a caller's open transaction it joins
   * that transaction and commits or rolls back with the change, so a crash just after the caller's
   * commit finds the run marked (before, the mark waited for the re-read at the transaction's end).
   * The heap then learns of the change ({@code heap}) at once, or when that transaction ends.
   */
  private void toHeap(List<String> keys, Runnable heap, Runnable mark) {
    List<String> later = List.copyOf(keys);
    if (later.isEmpty() || config.callerTransactions() == CallerTransactions.NONE) {
      runAll(mark, heap);
      return;
    }
    // Held before the transaction can end (the release below may then run at once, on this
    // thread): while it is open it holds these rows' locks, and no batch may wait for them.
    dispatcher.holdForCaller(later);
    boolean pending;
    try {
      pending =
          config
              .callerTransactions()
              .afterCompletion(
                  () -> {
                    try {
                      resync(later);
                    } finally {
                      dispatcher.releaseForCaller(later);
                    }
                  });
    } catch (RuntimeException e) {
      dispatcher.releaseForCaller(later);
      throw e;
    }
    if (!pending) {
      dispatcher.releaseForCaller(later);
      runAll(mark, heap);
    } else if (mark != null) {
      mark.run();
    }
  }

  /** Runs {@code first} (if not null), then {@code then}. */
  private static void runAll(Runnable first, Runnable then) {
    if (first != null) {
      first.run();
    }
    then.run();
  }

  /**
   * A change of these keys is about to be written: {@link Dispatcher#changing(Collection,
   * boolean)}, holding them first if the write may join a caller's transaction. Returns whether it
   * may, for the matching {@link Dispatcher#changeEnded(Collection, boolean)}. Call with the change
   * lock held.
   */
  private boolean changing(List<String> keys) {
    boolean inCallers = config.callerTransactions().mayJoin();
    dispatcher.changing(keys, inCallers); // see FireRunner's markAgainAfterChange
    return inCallers;
  }

  /** {@link #resync} now, or when the caller's open transaction ends (see {@link #toHeap}). */
  private void resyncWhenSettled(List<String> keys) {
    toHeap(keys, () -> resync(keys));
  }

  /**
   * Makes the heap agree with the store for these keys: after a failed write, which may have
   * committed with its answer lost (a dropped connection, H2 failing after the commit) or, for a
   * store without an atomic bulk write, in part; or when a caller's transaction holding changes
   * ends. A key whose row cannot be read now either is kept in {@link #unsettled} and read again at
   * the next window load or change ({@link #settle}).
   */
  private void resync(Collection<String> keys) {
    changes.lock();
    try {
      Instant now = config.time().now();
      List<JobRecord> toMark = new ArrayList<>();
      int failed = 0;
      RuntimeException first = null;
      for (String key : keys) {
        JobRecord r;
        try {
          r = config.store().find(key).orElse(null);
        } catch (UnreadableJobException e) {
          r = null; // not fired; unreadable() lists it
        } catch (RuntimeException e) {
          unsettled.add(key);
          failed++;
          first = first == null ? e : first;
          continue;
        }
        unsettled.remove(key);
        Instant going = r == null || clustered() ? null : dispatcher.goingRunStart(key, r);
        if (going != null && r.state() == JobState.RUNNING) {
          // The mark of a run going here (keepsRunMark): the engine holds the job SCHEDULED at
          // the stored version, as for any marked run.
          r = r.withSchedule(r.schedule().withState(JobState.SCHEDULED));
        } else if (going != null && r.state() == JobState.SCHEDULED) {
          toMark.add(r); // a write whose answer was lost, or a mark in the caller's transaction
          // that failed, left a run going here unmarked: see markGoingRuns
        } else if (going != null
            && r.state() == JobState.PAUSED
            && !going.equals(r.stats().lastStart())) {
          markPausedRun(r, going); // as above, for a pause: see pausedRunStart
        }
        dispatcher.reread(key, r != null && readable(r, now) ? r : null);
      }
      markGoingRuns(toMark);
      if (failed > 0) {
        log.warn(
            "re-reading {} job(s) after a failed store call failed too; they are read again at"
                + " the next window load or change",
            failed,
            first);
      }
    } finally {
      changes.unlock();
    }
  }

  /**
   * A store write of {@code key} threw. Unless the store refused it (nothing written), its commit
   * may have gone through with the answer lost, so the heap reads the job back. Returns {@code e}.
   */
  private RuntimeException writeFailed(String key, RuntimeException e) {
    if (!(e instanceof IllegalArgumentException) && !(e instanceof UnreadableJobException)) {
      resyncWhenSettled(List.of(key));
    }
    return e;
  }

  /**
   * An unexpected engine failure dropped the job from memory: its row is read again by a window
   * load that begins after a back-off (1 s, doubling per failure in a row up to 5 min), which
   * queues the job as the store holds it. A failure that repeats each time therefore costs one
   * logged error per back-off, not a silent job. Returns when, or null if the scheduler closes.
   */
  private Instant readAgainAfterFailure(String key) {
    if (closing) {
      return null;
    }
    Instant now = config.time().now();
    Instant stale = now.minus(DROPPED_MAX_DELAY.multipliedBy(2));
    if (dropped.size() >= 64) { // keys that failed long ago count as never
      dropped.values().removeIf(x -> x.last().isBefore(stale));
    }
    Dropped d =
        dropped.compute(
            key,
            (k, before) ->
                before == null || before.last().isBefore(stale)
                    ? new Dropped(1, now)
                    : new Dropped(before.times() + 1, now));
    Duration delay = DROPPED_FIRST_DELAY.multipliedBy(1L << Math.min(d.times() - 1, 20));
    Instant at = now.plus(delay.compareTo(DROPPED_MAX_DELAY) > 0 ? DROPPED_MAX_DELAY : delay);
    unsettled.add(key); // before the deadline: see settle()
    dispatcher.readAgainBy(key, at);
    return at;
  }

  /** Reads again the keys a failed {@link #resync} left unsettled, if any. */
  private void settle() {
    // First: a key dropped after this (see readAgainAfterFailure) sets the deadline again.
    dispatcher.rereadTaken();
    if (!unsettled.isEmpty()) {
      resync(List.copyOf(unsettled));
    }
  }

  /** The exception of a bulk call that failed after {@code done} items went through. */
  private static RuntimeException partly(
      RuntimeException e, String verb, int done, int total, String items) {
    if (done == 0) {
      return e;
    }
    return new StoreException(
        verb
            + " "
            + done
            + " of "
            + total
            + " job(s) before the store failed; calling again with the same "
            + items
            + " finishes the batch",
        e);
  }

  /** Applies a change of schedule state with compare-and-set, retrying if a write-back raced. */
  private boolean change(String key, UnaryOperator<JobRecord> how) {
    requireKey(key);
    checkNotClosed();
    changes.lock();
    try {
      settle();
      List<String> keys = List.of(key);
      boolean inCallers = changing(keys);
      try {
        return compareAndSet(key, keys, how);
      } finally {
        dispatcher.changeEnded(keys, inCallers);
      }
    } finally {
      changes.unlock();
    }
  }

  /**
   * The write of {@link #change}: reads the job, applies {@code how} and replaces it at the version
   * read, again while a write-back races it. Call with the change lock held and the change counted
   * ({@link #changing}).
   */
  private boolean compareAndSet(String key, List<String> keys, UnaryOperator<JobRecord> how) {
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
      boolean keepMark = keepsRunMark(r, wanted);
      Instant pausedRun = pausedRunStart(r, wanted);
      if (keepMark) {
        wanted = wanted.withSchedule(wanted.schedule().withState(JobState.RUNNING));
      }
      Optional<JobRecord> stored;
      try {
        stored = config.store().replace(wanted, r.version());
      } catch (RuntimeException e) {
        throw writeFailed(key, e);
      }
      if (keepMark) {
        log.trace("job '{}': changed during its run; written RUNNING", key);
      }
      if (stored.isPresent()) {
        // The engine holds the job SCHEDULED at the stored version, as for any marked run.
        JobRecord seen =
            keepMark
                ? stored.get().withSchedule(stored.get().schedule().withState(JobState.SCHEDULED))
                : stored.get();
        // A resumed job can break the catch-up rule as a loaded one can: not queued then.
        boolean ok = readable(seen, config.time().now());
        JobRecord paused = stored.get();
        toHeap(
            keys,
            () -> dispatcher.changed(key, ok ? seen : null),
            pausedRun == null ? null : () -> markPausedRun(paused, pausedRun));
        return true;
      }
    }
  }

  /**
   * True if {@code wanted}, which leaves the job {@code SCHEDULED}, must be written {@code RUNNING}
   * instead: a run of the job started here is going (single-instance mode; {@code r}, the row read,
   * does not hold its write-back yet), so its start mark must survive the change — above all a
   * {@code resume()} after a {@code pause()} made during the run — and a crash before the run's
   * write-back then re-runs the fire flagged as a recovery.
   */
  private boolean keepsRunMark(JobRecord r, JobRecord wanted) {
    return wanted.state() == JobState.SCHEDULED
        && !clustered()
        && dispatcher.goingRunStart(r.key(), r) != null;
  }

  /**
   * The start of a run of the job going here, if {@code wanted} pauses it (single-instance mode): a
   * {@code PAUSED} row has no room for the run's {@code RUNNING} mark, so the change writes that
   * start as the job's last start instead, after its own write ({@link #markPausedRun}); a start
   * without a recorded end tells the next scheduler, should a crash cut the run off, that it must
   * flag the run's fire as a recovery ({@link Dispatcher#recoverStartsNotEnded}). Else null.
   */
  private Instant pausedRunStart(JobRecord r, JobRecord wanted) {
    if (wanted.state() != JobState.PAUSED || r.state() == JobState.PAUSED || clustered()) {
      return null;
    }
    return dispatcher.goingRunStart(r.key(), r);
  }

  /**
   * Writes {@code start} as the paused job's last start ({@link #pausedRunStart}). The row stays
   * {@code PAUSED} (a start mark changes only a {@code SCHEDULED} row's state), and until the
   * change lock is released nothing can make it {@code SCHEDULED} or start another run of it; a
   * write-back landing first writes the same start, with its end. A pause made in the caller's open
   * transaction gets it in that transaction ({@link #toHeap}). A failure is reported: the run goes
   * on, unmarked, as before.
   */
  private void markPausedRun(JobRecord stored, Instant start) {
    try {
      config.store().runStarted(stored.key(), stored.nextFireTime(), start, config.instanceId());
    } catch (RuntimeException e) {
      log.warn(
          "job '{}': marking its run going here after the pause failed; a crash during that run"
              + " would run it again without the recovery flag",
          stored.key(),
          e);
    }
  }

  @Override
  public List<RunRecord> history(String key, int limit) {
    requireKey(key);
    checkNotClosed();
    if (limit < 0) {
      throw new IllegalArgumentException("history limit must not be negative: " + limit);
    }
    return config.store().history(key, limit);
  }

  @Override
  public List<UnreadableJob> unreadable() {
    Map<String, String> all = new TreeMap<>();
    // Reasons without the "job 'key': " of JobRules's messages, whichever store or rule gave them:
    // the key stands beside them.
    for (UnreadableJob u : config.store().unreadable()) {
      all.put(u.key(), JobRules.withoutKey(u.reason(), u.key()));
    }
    // Every readable job again, by the engine's own rules (cron, calendars, the catch-up age),
    // so a job is listed whether or not a load has met it yet (a scheduler not started, a job
    // beyond the window).
    List<JobRecord> jobs = config.store().findAll();
    if (jobs.stream().anyMatch(r -> r.spec().calendar().isPresent())) {
      runner.calendars.replaceAll(config.store().calendars());
    }
    Instant now = config.time().now();
    for (JobRecord r : jobs) {
      String problem = problem(r, now);
      if (problem != null) {
        all.putIfAbsent(r.key(), JobRules.withoutKey(problem, r.key()));
      }
    }
    refused.keySet().retainAll(all.keySet()); // fixed or deleted by hand since
    List<UnreadableJob> out = new ArrayList<>(all.size());
    all.forEach((key, reason) -> out.add(new UnreadableJob(key, reason)));
    return out;
  }

  /** The failure's message, and its root cause's if that is another exception. */
  private static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? e.getMessage() : e.getMessage() + " (" + root + ")";
  }

  private void checkNotClosed() {
    if (state.get() == CLOSED || closing) {
      throw new IllegalStateException("scheduler " + config.instanceId() + " is closed");
    }
  }

  /**
   * A key given to a lookup or change: null is a NullPointerException; a key no job can have
   * (blank, too long, a control character or unpaired surrogate) an IllegalArgumentException naming
   * it, as {@code schedule} refuses it, on every store (PostgreSQL cannot even compare a NUL).
   */
  private static void requireKey(String key) {
    Objects.requireNonNull(key, "key must not be null");
    JobRules.checkKey(key);
  }

  // ---- close ---------------------------------------------------------------------------------

  /**
   * {@inheritDoc}
   *
   * <p>Called from a run of this scheduler (its handler or a listener, on a worker or the backfill
   * thread: a job that shuts the application down), it does all of the above except wait for, or
   * interrupt, that run, and returns; when that run ends its thread writes it back, stops the
   * remaining threads and closes the store (see {@link #finishClose}). Called from a listener on a
   * write-back writer or the cluster thread, which the close waits for, it stops taking fires and
   * hands the rest to a thread of its own. A later call waits for a close in progress (see {@link
   * #awaitClosed}).
   */
  @Override
  public void close() {
    if (!beginClose()) {
      awaitClosed();
    }
  }

  /**
   * The first close: stops taking fires and closes, here or, where this thread is one the close
   * waits for, on a thread of its own. False if the scheduler was already closed or closing.
   */
  private synchronized boolean beginClose() {
    if (state.getAndSet(CLOSED) == CLOSED) {
      return false;
    }
    closing = true;
    Thread self = Thread.currentThread();
    boolean fromRun = workers.contains(self) || self == backfillThread;
    backfills.stop(); // no backfill run starts from here on
    dispatcher.shutdown();
    config.time().removeListener(wake);
    if (!fromRun && (runner.onWriterThread() || self == clusterThread)) {
      Thread rest = new Thread(() -> closeRest(false), "kairos-close-" + config.instanceId());
      rest.setDaemon(true); // the keep-alive thread holds the JVM until the close ends
      closeThread = rest;
      rest.start();
      log.info(
          "close() called from a listener on thread {}: the close goes on on thread {}",
          self.getName(),
          rest.getName());
      return true;
    }
    closeRest(fromRun);
    return true;
  }

  /**
   * The rest of a first close, on the thread that called it or on a close thread: waits for the
   * other runs up to the grace period, interrupts them, then closes (unless a run of the calling
   * thread called it: that run's thread closes when the run ends).
   */
  private void closeRest(boolean fromRun) {
    Thread self = Thread.currentThread();
    long graceNanos = config.gracePeriod().toNanos();
    long graceDeadline = System.nanoTime() + graceNanos;
    joinUntil(graceDeadline);
    joinBackfill(graceDeadline);
    long interruptDeadline = System.nanoTime() + INTERRUPT_WAIT.toNanos();
    boolean backfilling =
        backfillThread != null && backfillThread != self && backfillThread.isAlive();
    if (backfilling || otherWorkers().anyMatch(Thread::isAlive)) {
      log.warn(
          "grace period {} over; interrupting running job(s) {}{}",
          config.gracePeriod(),
          dispatcher.runningKeys(),
          backfilling ? " and the backfill run" : "");
      otherWorkers().forEach(Thread::interrupt);
      if (backfilling) {
        backfillThread.interrupt(); // together: a worker may wait for it (RunGate)
      }
      joinUntil(interruptDeadline);
      joinBackfill(interruptDeadline);
    }
    if (fromRun) {
      closer = self;
      log.info(
          "close() called from a run on thread {}: the other runs have ended; this run is"
              + " written back and the store closed when it ends",
          self.getName());
      return;
    }
    finishClose(interruptDeadline);
  }

  /**
   * A close() after the first: returns once that close has ended, the store closed. Waits up to the
   * grace period; then interrupts the run that called the first close, if it still runs, and waits
   * {@link #INTERRUPT_WAIT} more before it reports and returns. Returns at once on a thread of this
   * scheduler (a worker, the backfill, a writer or the cluster thread), which the first close may
   * wait for.
   */
  private void awaitClosed() {
    Thread self = Thread.currentThread();
    if (workers.contains(self)
        || self == backfillThread
        || self == clusterThread
        || self == closeThread
        || runner.onWriterThread()) {
      return;
    }
    try {
      if (closed.await(config.gracePeriod().toNanos(), TimeUnit.NANOSECONDS)) {
        return;
      }
      Thread run = closer;
      if (run != null && run.isAlive()) {
        log.warn(
            "grace period {} over; interrupting the run on thread {} that called close()",
            config.gracePeriod(),
            run.getName());
        run.interrupt();
      }
      if (!closed.await(INTERRUPT_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
        log.error(
            "close() returns while the close begun earlier has not ended after the grace period"
                + " and {} more (a run that called close() ignores interruption?)",
            INTERRUPT_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The worker threads, made by the configured factory and not started.
   *
   * @throws IllegalStateException if the factory fails, returns null, or returns a thread that is
   *     not new or that it returned before, naming the worker
   */
  private List<Thread> newWorkers() {
    List<Thread> made = new ArrayList<>();
    for (int i = 1; i <= config.workers(); i++) {
      Runnable body = thenFinishClose(this::work);
      String which = "worker " + i + " of " + config.workers();
      Thread t;
      try {
        t = config.threadFactory().newThread(body);
      } catch (RuntimeException e) {
        throw new IllegalStateException("threadFactory failed to make " + which, e);
      }
      if (t == null) {
        throw new IllegalStateException("threadFactory returned null for " + which);
      }
      if (t.getState() != Thread.State.NEW || made.contains(t)) {
        throw new IllegalStateException(
            "threadFactory returned a thread that is not new for " + which + ": " + t);
      }
      try {
        t.setDaemon(true); // the keep-alive thread holds the JVM; a stuck worker must not
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "threadFactory returned a thread that cannot be made a daemon for " + which, e);
      }
      made.add(t);
    }
    return made;
  }

  /** The workers other than the calling thread. */
  private java.util.stream.Stream<Thread> otherWorkers() {
    Thread self = Thread.currentThread();
    return workers.stream().filter(t -> t != self);
  }

  /**
   * The body of a thread that runs jobs (a worker, the backfill thread): {@code loop}, then, if a
   * run on this thread called {@link #close()}, the rest of that close.
   */
  private Runnable thenFinishClose(Runnable loop) {
    return () -> {
      try {
        loop.run();
      } finally {
        if (closer == Thread.currentThread()) {
          finishClose(System.nanoTime() + INTERRUPT_WAIT.toNanos());
        }
      }
    };
  }

  /**
   * The end of {@link #close()}: stops the cluster sync, the replacer and the write-back queue
   * (writing back what it holds), reports workers that ignored interruption and closes the store.
   * Run by close() itself, or, when a run called close(), by that run's thread once the run has
   * ended and been handed to the write-back.
   */
  private void finishClose(long interruptDeadline) {
    try {
      stopClusterSync(interruptDeadline);
      runner.replacer.stop();
      if (!runner.stopWriteBackQueue(
          Math.max(interruptDeadline, System.nanoTime() + 1_000_000_000L))) {
        log.error(
            "some write-backs were still unwritten at close (the store fails?); those fires run"
                + " again at the next start");
      }
      List<String> stuck = otherWorkers().filter(Thread::isAlive).map(Thread::getName).toList();
      if (!stuck.isEmpty()) {
        log.error(
            "job(s) {} still running {} after the grace period and interruption: worker thread(s)"
                + " {} ignored interruption. close() returns anyway; they are daemon threads and do"
                + " not keep the JVM alive, but their run's outcome will not be recorded",
            dispatcher.runningKeys(),
            INTERRUPT_WAIT,
            stuck);
      }
      keepAlive.countDown();
      try {
        config.store().close();
      } catch (Exception ex) {
        log.warn("closing the store failed", ex);
      }
      log.info("Kairos instance {} closed", config.instanceId());
    } finally {
      closed.countDown();
    }
  }

  /** Waits for the backfill thread (stopped by close) until the deadline (System.nanoTime()). */
  private void joinBackfill(long deadlineNanos) {
    if (backfillThread != null
        && backfillThread != Thread.currentThread()
        && backfillThread.isAlive()) {
      Backfills.join(backfillThread, deadlineNanos);
    }
  }

  private void stopClusterSync(long deadlineNanos) {
    if (clusterSync == null) {
      return;
    }
    clusterSync.stop();
    if (clusterThread != null) {
      clusterThread.interrupt();
      try {
        TimeUnit.NANOSECONDS.timedJoin(
            clusterThread, Math.max(1, deadlineNanos - System.nanoTime()));
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
    for (Thread t : otherWorkers().toList()) {
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

  @Override
  public SchedulerStats stats() {
    ClusterSync sync = clusterSync;
    return new SchedulerStats(
        dispatcher.queued(),
        dispatcher.running(),
        config.workers(),
        !health.isDown(),
        sync == null ? 0 : sync.liveInstances(),
        sync == null || sync.alive(),
        runner.writeBacksWaiting());
  }

  @Override
  public List<dev.kairos.LimitStatus> limits() {
    return dispatcher.limitStatus();
  }

  /** Instrumentation for tests: keys of running jobs. */
  List<String> runningKeys() {
    return dispatcher.runningKeys();
  }

  /** Instrumentation for tests: entries in the heap. */
  int queued() {
    return dispatcher.queued();
  }
}
