package dev.kairos.engine;

import dev.kairos.JobState;
import dev.kairos.RunRecord;
import dev.kairos.spi.BackfillSlot;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.ConcurrentRun;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A job store in memory: nothing survives the process. For tests, and for applications whose jobs
 * are all re-created at start. Thread-safe; answers window queries from an index ordered by (due
 * time, key), like the JDBC store's.
 *
 * <p>{@link #shared(TimeSource)} makes a store that several schedulers in one JVM can share in
 * cluster mode (claims, leases, change feed, live instances), for testing cluster behaviour without
 * a database.
 */
public final class InMemoryStore implements ClusterStore {
  /** Default number of runs kept per job in the history. */
  public static final int DEFAULT_HISTORY_PER_JOB = 100;

  /**
   * Each job's record and history by key; unordered for O(1) look-ups on the fire path, sorted
   * where order is promised. One map for both: a run's write-back looks the key up once.
   */
  private final Map<String, Slot> jobs = new HashMap<>();

  /** A stored job: its record and its runs, newest first (null until its first run). */
  private static final class Slot {
    JobRecord record;
    Deque<RunRecord> runs;
  }

  private final TreeMap<String, dev.kairos.BusinessCalendar> calendars = new TreeMap<>();
  private final NavigableSet<WindowCursor> byDue = new TreeSet<>();

  /** Backfill slots by key, each job's by fire time. */
  private final Map<String, TreeMap<Instant, BackfillSlot>> backfill = new HashMap<>();

  private final int historyPerJob;
  private final boolean keepCompleted;

  /** Cluster mode: the clock that judges leases, or null when not shared. */
  private final TimeSource clusterClock;

  private final Map<String, Lease> leases = new HashMap<>();

  /**
   * The change feed: sequence number → key. A job's newest write replaces its older entry; a
   * deletion stays, so a job deleted and created again is reported as both (deletions apply first).
   */
  private final TreeMap<Long, Change> changeLog = new TreeMap<>();

  private final Map<String, Long> lastChange = new HashMap<>();

  /** Sequence numbers of the deletions in the change log, oldest first, at most MAX_DELETIONS. */
  private final Deque<Long> deletions = new ArrayDeque<>();

  private static final int MAX_DELETIONS = 10_000;

  private record Change(String key, boolean deleted) {}

  private final Map<String, Instant> instances = new LinkedHashMap<>();
  private long changeSeq;

  /** A claim: its owner, its lease, and the due time (fire) it was won on. */
  private record Lease(String owner, Instant until, Instant fire) {}

  /** A store keeping completed one-shot jobs and the last 100 runs per job. */
  public InMemoryStore() {
    this(DEFAULT_HISTORY_PER_JOB, true);
  }

  /**
   * @param historyPerJob runs kept per job (0 keeps none)
   * @param keepCompleted whether a completed one-shot job stays (state COMPLETE) or is deleted
   */
  public InMemoryStore(int historyPerJob, boolean keepCompleted) {
    this(historyPerJob, keepCompleted, null);
  }

  private InMemoryStore(int historyPerJob, boolean keepCompleted, TimeSource clusterClock) {
    if (historyPerJob < 0) {
      throw new IllegalArgumentException("history per job must not be negative: " + historyPerJob);
    }
    this.historyPerJob = historyPerJob;
    this.keepCompleted = keepCompleted;
    this.clusterClock = clusterClock;
  }

  /**
   * A store for several schedulers in one JVM, in cluster mode: fires are claimed, leases judged by
   * {@code clock}.
   *
   * @param clock the time source that judges leases, shared by the schedulers
   * @return a new, empty clustered store
   */
  public static InMemoryStore shared(TimeSource clock) {
    if (clock == null) {
      throw new IllegalArgumentException("clock is null");
    }
    return new InMemoryStore(DEFAULT_HISTORY_PER_JOB, true, clock);
  }

  /**
   * {@inheritDoc} A shared store refuses a job attached to a calendar it does not hold (another
   * scheduler deleted it since this one looked), as {@link #deleteCalendar} refuses a calendar a
   * job is attached to; a store of one scheduler leaves that check to the engine.
   */
  @Override
  public synchronized Upsert upsert(JobRecord fresh) {
    requireCalendars(List.of(fresh));
    return upsertChecked(fresh);
  }

  private Upsert upsertChecked(JobRecord fresh) {
    JobRecord old = record(fresh.key());
    if (old == null) {
      put(fresh.withVersion(JobRecord.firstVersion()));
      return new Upsert(record(fresh.key()), Upsert.Change.CREATED);
    }
    if (old.spec().equals(fresh.spec())) {
      return new Upsert(old, Upsert.Change.UNCHANGED);
    }
    JobRecord updated =
        new JobRecord(fresh.spec(), fresh.schedule(), old.stats(), old.version() + 1);
    put(updated);
    return new Upsert(updated, Upsert.Change.UPDATED);
  }

  @Override
  public synchronized Optional<JobRecord> find(String key) {
    return Optional.ofNullable(record(key));
  }

  @Override
  public synchronized List<JobRecord> findAll() {
    return jobs.values().stream().map(x -> x.record).sorted(BY_KEY).toList();
  }

  @Override
  public synchronized Optional<JobRecord> replace(JobRecord updated, long expectedVersion) {
    JobRecord old = record(updated.key());
    if (old == null || old.version() != expectedVersion) {
      return Optional.empty();
    }
    JobRecord r =
        new JobRecord(updated.spec(), updated.schedule(), old.stats(), expectedVersion + 1);
    put(r);
    return Optional.of(r);
  }

  @Override
  public synchronized boolean delete(String key) {
    Slot gone = jobs.remove(key); // its history with it
    JobRecord old = gone == null ? null : gone.record;
    if (old != null && old.dueTime() != null) {
      byDue.remove(old.cursor());
    }
    leases.remove(key);
    backfill.remove(key);
    if (old != null) {
      logDeletion(key);
    }
    return old != null;
  }

  /** {@link #upsert} of each record, atomically: no other call sees part of the batch. */
  @Override
  public synchronized List<Upsert> upsertAll(List<JobRecord> fresh) {
    requireCalendars(fresh); // before anything is written
    List<Upsert> out = new ArrayList<>(fresh.size());
    for (JobRecord r : fresh) {
      out.add(upsertChecked(r));
    }
    return out;
  }

  /** A shared store: refuses records attached to a calendar it does not hold. Hold the monitor. */
  private void requireCalendars(List<JobRecord> records) {
    if (clusterClock == null) {
      return;
    }
    for (JobRecord r : records) {
      String name = r.spec().calendar().orElse(null);
      if (name != null && !calendars.containsKey(name)) {
        throw dev.kairos.spi.JobRules.calendarGone(r.key(), name);
      }
    }
  }

  /** {@link #delete} of each key, atomically. */
  @Override
  public synchronized List<String> deleteAll(Collection<String> keys) {
    List<String> out = new ArrayList<>();
    for (String key : keys) {
      if (delete(key)) {
        out.add(key);
      }
    }
    return out;
  }

  @Override
  public synchronized List<JobRecord> due(WindowCursor after, Instant before, int limit) {
    NavigableSet<WindowCursor> tail = after == null ? byDue : byDue.tailSet(after, false);
    List<JobRecord> out = new ArrayList<>();
    for (WindowCursor c : tail) {
      if (out.size() >= limit || !c.dueTime().isBefore(before)) {
        break;
      }
      out.add(record(c.key()));
    }
    return out;
  }

  @Override
  public synchronized void runStarted(
      String key, Instant scheduledFireTime, Instant start, String instance) {
    Slot slot = jobs.get(key);
    if (slot == null) {
      return;
    }
    JobRecord r = slot.record;
    JobState s = r.state() == JobState.SCHEDULED ? JobState.RUNNING : r.state();
    // The due time does not change: the index stays as it is. Not a change for the feed either.
    slot.record =
        r.withSchedule(r.schedule().withState(s)).withStats(r.stats().withLastStart(start));
  }

  /**
   * Marks each job {@code RUNNING} that is {@code SCHEDULED} at the mark's version; the version and
   * the last start are kept. The engine calls it for this store only to keep the mark of a run
   * going here through a change of the job's definition.
   */
  @Override
  public synchronized void runsStarted(List<dev.kairos.spi.StartMark> marks) {
    for (dev.kairos.spi.StartMark m : marks) {
      Slot slot = jobs.get(m.key());
      if (slot != null
          && slot.record.version() == m.version()
          && slot.record.state() == JobState.SCHEDULED) {
        slot.record = slot.record.withSchedule(slot.record.schedule().withState(JobState.RUNNING));
      }
    }
  }

  @Override
  public synchronized Optional<JobRecord> runFinished(RunResult x) {
    JobRecord r = record(x.key());
    if (r == null) {
      return Optional.empty();
    }
    appendHistory(x);
    boolean current = r.version() == x.expectedVersion();
    Lease lease = leases.get(x.key());
    boolean leasedToOther = lease != null && !lease.owner().equals(x.instance());
    if (current || !leasedToOther) {
      leases.remove(x.key());
    }
    JobRecord updated = x.applyTo(r, leasedToOther);
    if (updated.state() == JobState.COMPLETE && !keepCompleted) {
      delete(x.key());
      return Optional.empty();
    }
    put(updated);
    return Optional.of(updated);
  }

  private void appendHistory(RunResult x) {
    prepend(x.run());
  }

  @Override
  public synchronized void recordSkipped(RunRecord skipped) {
    dev.kairos.spi.JobRules.checkRun(skipped);
    if (jobs.containsKey(skipped.key())) {
      prepend(skipped);
    }
  }

  /** Adds a history entry, newest first, within the history's bound. Call holding the monitor. */
  private void prepend(RunRecord run) {
    if (historyPerJob == 0) {
      return;
    }
    Slot slot = jobs.get(run.key());
    if (slot == null) {
      return; // every caller checked that the job exists
    }
    Deque<RunRecord> runs = slot.runs;
    if (runs == null) {
      slot.runs = runs = new ArrayDeque<>(Math.min(historyPerJob, 4));
    }
    runs.addFirst(run);
    while (runs.size() > historyPerJob) {
      runs.removeLast();
    }
  }

  @Override
  public synchronized List<RunRecord> history(String key, int limit) {
    Slot slot = jobs.get(key);
    Deque<RunRecord> runs = slot == null ? null : slot.runs;
    return runs == null ? List.of() : runs.stream().limit(limit).toList();
  }

  // ---- backfill ------------------------------------------------------------------------------

  @Override
  public synchronized int addBackfill(String key, List<Instant> fireTimes) {
    if (!jobs.containsKey(key)) {
      return 0;
    }
    TreeMap<Instant, BackfillSlot> slots = backfill.computeIfAbsent(key, k -> new TreeMap<>());
    int added = 0;
    for (Instant t : fireTimes) {
      if (slots.putIfAbsent(t, new BackfillSlot(key, t, BackfillSlot.State.PENDING, null))
          == null) {
        added++;
      }
    }
    return added;
  }

  @Override
  public synchronized List<BackfillSlot> nextBackfill(int limit) {
    List<BackfillSlot> out = new ArrayList<>();
    for (TreeMap<Instant, BackfillSlot> slots : backfill.values()) {
      slots.values().stream()
          .filter(b -> b.state() != BackfillSlot.State.DONE)
          .findFirst()
          .filter(b -> b.state() == BackfillSlot.State.PENDING)
          .ifPresent(out::add);
    }
    out.sort(
        java.util.Comparator.comparing(BackfillSlot::fireTime).thenComparing(BackfillSlot::key));
    return out.size() > limit ? List.copyOf(out.subList(0, limit)) : out;
  }

  @Override
  public synchronized boolean claimBackfill(String key, Instant fireTime, String instance) {
    TreeMap<Instant, BackfillSlot> slots = backfill.get(key);
    BackfillSlot b = slots == null ? null : slots.get(fireTime);
    if (b == null || b.state() != BackfillSlot.State.PENDING) {
      return false;
    }
    slots.put(
        fireTime, new BackfillSlot(key, fireTime, BackfillSlot.State.RUNNING, instance, b.kind()));
    return true;
  }

  @Override
  public synchronized boolean finishBackfill(RunRecord run, String instance) {
    dev.kairos.spi.JobRules.checkRun(run);
    if (!jobs.containsKey(run.key())) {
      return false; // unscheduled meanwhile: no history for a job created again under the key
    }
    prepend(run);
    TreeMap<Instant, BackfillSlot> slots = backfill.get(run.key());
    BackfillSlot b = slots == null ? null : slots.get(run.scheduledFireTime());
    if (b == null
        || b.kind() != BackfillSlot.Kind.BACKFILL
        || b.state() != BackfillSlot.State.RUNNING
        || !Objects.equals(b.owner(), instance)) {
      return false;
    }
    slots.put(b.fireTime(), new BackfillSlot(b.key(), b.fireTime(), BackfillSlot.State.DONE, null));
    return true;
  }

  // ---- concurrent runs (Overlap.allow) -------------------------------------------------------

  /** True: concurrent runs are kept among the backfill slots. */
  @Override
  public boolean supportsConcurrentRuns() {
    return true;
  }

  @Override
  public synchronized ConcurrentRun.Answer startConcurrentRun(ConcurrentRun run) {
    JobRecord r = record(run.key());
    if (r == null || r.version() != run.expectedVersion()) {
      return ConcurrentRun.Answer.refused(ConcurrentRun.Outcome.CHANGED);
    }
    if (run.cluster() && (r.dueTime() == null || r.dueTime().isAfter(storeNow()))) {
      return ConcurrentRun.Answer.refused(ConcurrentRun.Outcome.NOT_DUE);
    }
    TreeMap<Instant, BackfillSlot> slots =
        backfill.computeIfAbsent(run.key(), k -> new TreeMap<>());
    long runs = slots.values().stream().filter(b -> b.kind() == BackfillSlot.Kind.RUN).count();
    if (runs >= run.maxRuns()) {
      return ConcurrentRun.Answer.refused(ConcurrentRun.Outcome.FULL);
    }
    if (run.cluster() && run.limit() != null && liveRuns(run.limit()) >= run.limit().permits()) {
      return ConcurrentRun.Answer.refused(ConcurrentRun.Outcome.LIMIT_FULL);
    }
    slots.putIfAbsent(
        run.fire(),
        new BackfillSlot(
            run.key(),
            run.fire(),
            BackfillSlot.State.RUNNING,
            run.instance(),
            BackfillSlot.Kind.RUN));
    leases.remove(run.key());
    JobRecord started = run.applyTo(r);
    put(started);
    return new ConcurrentRun.Answer(ConcurrentRun.Outcome.STARTED, Optional.of(started));
  }

  @Override
  public synchronized boolean finishConcurrentRun(RunRecord run, String instance) {
    dev.kairos.spi.JobRules.checkRun(run);
    if (!jobs.containsKey(run.key())) {
      return false;
    }
    prepend(run);
    TreeMap<Instant, BackfillSlot> slots = backfill.get(run.key());
    BackfillSlot b = slots == null ? null : slots.get(run.scheduledFireTime());
    if (b == null
        || b.kind() != BackfillSlot.Kind.RUN
        || b.state() != BackfillSlot.State.RUNNING
        || !Objects.equals(b.owner(), instance)) {
      return false;
    }
    slots.remove(run.scheduledFireTime());
    return true;
  }

  @Override
  public synchronized int releaseBackfill(Collection<String> live) {
    int n = 0;
    for (TreeMap<Instant, BackfillSlot> slots : backfill.values()) {
      for (BackfillSlot b : List.copyOf(slots.values())) {
        if (b.state() == BackfillSlot.State.RUNNING && !live.contains(b.owner())) {
          slots.put(
              b.fireTime(),
              new BackfillSlot(b.key(), b.fireTime(), BackfillSlot.State.PENDING, null, b.kind()));
          n++;
        }
      }
    }
    return n;
  }

  @Override
  public synchronized List<BackfillSlot> backfillSlots(String key) {
    TreeMap<Instant, BackfillSlot> slots = backfill.get(key);
    return slots == null ? List.of() : List.copyOf(slots.values());
  }

  // ---- calendars -----------------------------------------------------------------------------

  @Override
  public synchronized void putCalendar(String name, dev.kairos.BusinessCalendar calendar) {
    dev.kairos.spi.JobRules.checkCalendar(name, calendar);
    calendars.put(name, calendar);
  }

  @Override
  public synchronized java.util.SortedMap<String, dev.kairos.BusinessCalendar> calendars() {
    return new TreeMap<>(calendars);
  }

  @Override
  public synchronized boolean deleteCalendar(String name) {
    List<String> users =
        jobs.values().stream()
            .map(x -> x.record)
            .filter(r -> r.spec().calendar().filter(name::equals).isPresent())
            .map(JobRecord::key)
            .sorted()
            .toList();
    if (!users.isEmpty()) {
      throw dev.kairos.spi.JobRules.calendarInUse(name, users);
    }
    return calendars.remove(name) != null;
  }

  /** Key order, which {@link #findAll} promises (the map itself is unordered). */
  private static final java.util.Comparator<JobRecord> BY_KEY =
      java.util.Comparator.comparing(JobRecord::key);

  /** The job's record, or null. Call only while synchronized. */
  private JobRecord record(String key) {
    Slot slot = jobs.get(key);
    return slot == null ? null : slot.record;
  }

  /** Call only while synchronized. Stores r, keeps the due index in step, logs the change. */
  private void put(JobRecord r) {
    logChange(r.key());
    Slot slot = jobs.computeIfAbsent(r.key(), k -> new Slot());
    JobRecord old = slot.record;
    slot.record = r;
    if (old != null && old.dueTime() != null) {
      byDue.remove(old.cursor());
    }
    if (r.dueTime() != null) {
      byDue.add(r.cursor());
    }
  }

  /** Call only while synchronized. */
  private void logChange(String key) {
    if (clusterClock == null) {
      return; // only a shared store keeps a change feed
    }
    Long previous = lastChange.put(key, ++changeSeq);
    if (previous != null) {
      changeLog.remove(previous);
    }
    changeLog.put(changeSeq, new Change(key, false));
    notifyAll();
  }

  /** Call only while synchronized. */
  private void logDeletion(String key) {
    Long previous = lastChange.remove(key);
    if (previous != null) {
      changeLog.remove(previous);
    }
    changeLog.put(++changeSeq, new Change(key, true));
    deletions.addLast(changeSeq);
    if (deletions.size() > MAX_DELETIONS) {
      changeLog.remove(deletions.removeFirst());
    }
    notifyAll();
  }

  // ---- cluster ---------------------------------------------------------------------------------

  @Override
  public boolean clustered() {
    return clusterClock != null;
  }

  @Override
  public synchronized void register(String instance) {
    instances.put(instance, storeNow());
  }

  @Override
  public synchronized void heartbeat(String instance) {
    instances.put(instance, storeNow());
  }

  @Override
  public synchronized void deregister(String instance) {
    instances.remove(instance);
  }

  /**
   * Instances and their last heartbeat (store clock).
   *
   * @return an immutable copy of each registered instance's last heartbeat, by instance id
   */
  @Override
  public synchronized Map<String, Instant> instances() {
    return Map.copyOf(instances);
  }

  /**
   * Ids of the registered instances whose last {@link #register} or {@link #heartbeat} (store
   * clock) is at most {@code within} ago, sorted; as the JDBC store's, an instance exactly {@code
   * within} old still counts. A deregistered instance never counts; one whose heartbeats stopped
   * drops out once {@code within} has passed by the store's clock.
   *
   * @param within how recent a heartbeat must be to count as live
   * @return the live instance ids, sorted
   */
  @Override
  public synchronized List<String> liveInstances(Duration within) {
    Instant since = storeNow().minus(within);
    return instances.entrySet().stream()
        .filter(e -> !e.getValue().isBefore(since))
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }

  @Override
  public synchronized Optional<Claimed> claim(JobRecord expected, String instance, Duration lease) {
    JobRecord r = record(expected.key());
    if (r == null || r.version() != expected.version()) {
      return Optional.empty();
    }
    Instant now = storeNow();
    Lease held = leases.get(r.key());
    boolean running = r.state() == JobState.RUNNING;
    if (held != null && held.until().isAfter(now)) {
      return Optional.empty();
    }
    // A claim of this very fire whose lease lapsed without a write-back: its run may have started,
    // even if a change made during it left the row SCHEDULED (paused, then resumed). A trigger
    // made during it is another fire: not a recovery.
    boolean recovery =
        running || (held != null && java.util.Objects.equals(held.fire(), r.dueTime()));
    if (!running
        && (!java.util.Objects.equals(r.dueTime(), expected.dueTime())
            || r.dueTime() == null
            || r.dueTime().isAfter(now))) {
      return Optional.empty(); // another fire, or not yet due by the store's clock
    }
    JobState s = r.state() == JobState.PAUSED ? JobState.PAUSED : JobState.RUNNING;
    JobRecord claimed =
        new JobRecord(
            r.spec(), r.schedule().withState(s), r.stats().withLastStart(now), r.version() + 1);
    put(claimed);
    leases.put(r.key(), new Lease(instance, now.plus(lease), r.dueTime()));
    return Optional.of(new Claimed(claimed, recovery));
  }

  /**
   * Claims as {@link #claim}, if fewer than the limit's permits other jobs of its handlers hold a
   * live lease (by this store's clock). Judged under the store's monitor, so claims are serialized.
   */
  @Override
  public synchronized LimitedClaim claimWithin(
      JobRecord expected, String instance, Duration lease, dev.kairos.ConcurrencyLimit limit) {
    Instant now = storeNow();
    int live = 0;
    for (Map.Entry<String, Lease> l : leases.entrySet()) {
      JobRecord r = record(l.getKey());
      if (!l.getKey().equals(expected.key())
          && l.getValue().until().isAfter(now)
          && r != null
          && limit.handlers().contains(r.spec().handler())) {
        live++;
      }
    }
    if (live + runningBackfill(limit) >= limit.permits()) {
      return LimitedClaim.full();
    }
    return new LimitedClaim(claim(expected, instance, lease), false);
  }

  /**
   * Claims a backfill slot under a concurrency limit: live leases of the limit's handlers' jobs and
   * their RUNNING slots count; judged under the store's monitor.
   */
  @Override
  public synchronized BackfillClaim claimBackfillWithin(
      String key, Instant fireTime, String instance, dev.kairos.ConcurrencyLimit limit) {
    if (liveRuns(limit) >= limit.permits()) {
      return BackfillClaim.LIMIT_FULL;
    }
    return claimBackfill(key, fireTime, instance) ? BackfillClaim.CLAIMED : BackfillClaim.LOST;
  }

  /**
   * The limit's live runs: jobs of its handlers holding a live lease, and their RUNNING slots (of
   * either kind). Call holding the monitor.
   */
  private int liveRuns(dev.kairos.ConcurrencyLimit limit) {
    Instant now = storeNow();
    int live = runningBackfill(limit);
    for (Map.Entry<String, Lease> l : leases.entrySet()) {
      JobRecord r = record(l.getKey());
      if (l.getValue().until().isAfter(now)
          && r != null
          && limit.handlers().contains(r.spec().handler())) {
        live++;
      }
    }
    return live;
  }

  /** RUNNING backfill slots of jobs of the limit's handlers. Call holding the monitor. */
  private int runningBackfill(dev.kairos.ConcurrencyLimit limit) {
    int n = 0;
    for (Map.Entry<String, TreeMap<Instant, BackfillSlot>> e : backfill.entrySet()) {
      JobRecord r = record(e.getKey());
      if (r != null && limit.handlers().contains(r.spec().handler())) {
        for (BackfillSlot b : e.getValue().values()) {
          if (b.state() == BackfillSlot.State.RUNNING) {
            n++;
          }
        }
      }
    }
    return n;
  }

  @Override
  public synchronized boolean release(String key, String instance, Instant claimedFire) {
    Lease l = leases.get(key);
    if (l == null || !l.owner().equals(instance) || !Objects.equals(l.fire(), claimedFire)) {
      return false;
    }
    leases.remove(key);
    JobRecord r = record(key);
    if (r != null && r.state() == JobState.RUNNING) {
      put(
          r.withSchedule(
              JobState.SCHEDULED, r.nextFireTime(), r.dueTime(), r.dueKind(), r.attempt()));
    }
    return true;
  }

  @Override
  public synchronized int renewClaims(
      String instance, Map<String, Instant> claimedFires, Duration lease) {
    Instant until = storeNow().plus(lease);
    int n = 0;
    for (Map.Entry<String, Instant> c : claimedFires.entrySet()) {
      Lease l = leases.get(c.getKey());
      if (l != null && l.owner().equals(instance) && Objects.equals(l.fire(), c.getValue())) {
        leases.put(c.getKey(), new Lease(instance, until, l.fire()));
        n++;
      }
    }
    return n;
  }

  /**
   * RUNNING jobs without a live lease, and jobs with a due time whose claim's lease has expired
   * though they are no longer RUNNING (changed by another instance during the run, whose instance
   * then died): nobody else would queue those again.
   */
  @Override
  public synchronized List<JobRecord> expiredClaims(int limit) {
    Instant now = storeNow();
    return jobs.values().stream()
        .map(x -> x.record)
        .filter(
            r -> {
              Lease l = leases.get(r.key());
              boolean expired = l != null && !l.until().isAfter(now);
              return r.state() == JobState.RUNNING
                  ? l == null || expired
                  : expired && r.dueTime() != null;
            })
        .sorted(BY_KEY) // key order among the expired only, as the JDBC store's query
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized Overdue overdueJobs(Duration by, WindowCursor after, int limit) {
    Instant before = storeNow().minus(by);
    List<JobRecord> out = new ArrayList<>();
    NavigableSet<WindowCursor> tail = after == null ? byDue : byDue.tailSet(after, false);
    for (WindowCursor c : tail) { // (due, key) order, as the JDBC store's due-time index
      if (out.size() >= limit || c.dueTime().isAfter(before)) {
        break;
      }
      JobRecord r = record(c.key());
      if (r.state() != JobState.RUNNING && !leases.containsKey(r.key())) {
        out.add(r);
      }
    }
    return new Overdue(out, out.size() < limit ? null : out.get(out.size() - 1).cursor());
  }

  @Override
  public synchronized Changes changesSince(long cursor, int limit) {
    List<JobRecord> changed = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    long last = cursor;
    for (Map.Entry<Long, Change> c : changeLog.tailMap(cursor, false).entrySet()) {
      if (changed.size() + deleted.size() >= limit) {
        break;
      }
      if (c.getValue().deleted()) {
        deleted.add(c.getValue().key());
      } else {
        changed.add(record(c.getValue().key()));
      }
      last = c.getKey();
    }
    return new Changes(changed, deleted, last);
  }

  @Override
  public synchronized long changeCursor() {
    return changeSeq;
  }

  @Override
  public synchronized boolean awaitChange(Duration max) throws InterruptedException {
    long seen = changeSeq;
    long deadline = System.nanoTime() + max.toNanos();
    long left;
    while (changeSeq == seen && (left = deadline - System.nanoTime()) > 0) {
      java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return changeSeq != seen;
  }

  @Override
  public Instant storeNow() {
    return clusterClock != null ? clusterClock.now() : TimeSource.system().now();
  }

  @Override
  public String toString() {
    return clustered() ? "InMemoryStore(shared)" : "InMemoryStore";
  }
}
