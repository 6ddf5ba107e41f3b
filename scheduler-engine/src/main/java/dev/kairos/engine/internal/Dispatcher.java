package dev.kairos.engine.internal;

import dev.kairos.JobState;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.WindowCursor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heap of due fires and the leader–follower protocol by which workers take them.
 *
 * <p>Callers may rely on: {@link #take()} returns an entry only when it is due by the time source;
 * entries due at the same instant come out in the order they were queued; an entry is handed to one
 * worker at a time and is not queued again until {@link #finish} (so a job never overlaps itself);
 * after {@link #shutdown()} no entry is handed out.
 *
 * <h2>Design notes</h2>
 *
 * <p>One {@link ReentrantLock} guards everything here: the heap, the tracking map, the window
 * cursors, the leader. There is no scanner thread. Workers call {@link #take()}:
 *
 * <ul>
 *   <li>The <b>leader</b> is the one worker allowed to wait with a timeout: until the head is due,
 *       or the next window load is due, whichever is first. Every other idle worker is a
 *       <b>follower</b> and waits untimed. So at most one timer is armed, and when it fires one
 *       thread, not all, competes for the head.
 *   <li>The leader waits on its own condition ({@code leaderWake}), followers on {@code available}.
 *       When the earliest deadline moves (a new head, a manual clock's advance, a finished window
 *       load), the leader alone is signalled and re-reads the head; if there is no leader, one
 *       follower is. Unlike ScheduledThreadPoolExecutor, which clears the leader and may leave the
 *       old one in its timed wait beside a new one, this never arms two timers.
 *   <li>A worker leaving {@code take()} with an entry signals one follower if there is no leader
 *       and the heap is not empty, so somebody always watches the head while others run jobs (no
 *       lost wake-up).
 *   <li><b>Window loads</b> come before due fires: a worker in {@code take()} that finds a load due
 *       (the window is truncated and fewer than half a window is queued, or the periodic load's
 *       time has come) and none running gets {@link #LOAD}, and the others go on taking due fires
 *       while it reads. So a backlog larger than one load is read a page at a time ahead of the
 *       workers, not when the heap has run dry, and the first fires after a start wait for one
 *       page, not for the whole window. {@link #poll()} (the step API) keeps fires first.
 *   <li>A worker holds the lock about once per fire: it finishes the entry it ran and takes its
 *       next one in the same hold ({@link #finishAndTake}; an entry with a trigger requested during
 *       its run is given back unfinished, for the worker to apply the trigger under the scheduler's
 *       change lock first), and {@link #beginRun} reads volatile flags instead of taking the lock.
 *   <li>A manual time source cannot be waited on; its leader waits untimed and the source's advance
 *       callback ({@link #wake()}) signals the leader (which then clears itself and re-reads the
 *       deadline), or a follower if there is none.
 *   <li>Deadlines are wall-clock times, waits are monotonic: the leader waits at most {@link
 *       #CLOCK_RECHECK} at a time and then re-reads the clock, so a wall clock that steps forward
 *       (an NTP correction, a machine resumed from a pause, which the monotonic clock does not
 *       count) makes the fires it passed due within that bound, not after the wait computed before
 *       the step. A step back needs nothing: the woken leader finds the head not yet due and waits
 *       again.
 *   <li>Cluster mode, batched claims: a worker may take several due entries at once ({@link
 *       #takeDue}), claim them together and put the ones it does not run itself in the ready queue
 *       ({@link #handOut}). {@code take()} serves that queue before the heap, even after shutdown
 *       (so that their claims are released by workers); {@code handOut} signals one follower per
 *       entry and the leader, and a worker leaving {@code take()} signals a follower while the
 *       ready queue is not empty, so no ready entry waits for a worker that sleeps.
 *   <li><b>Concurrency limits</b> ({@link Permits}, one per {@link dev.kairos.ConcurrencyLimit}): a
 *       worker that takes a due head whose handler's limit is full does not return it; it moves it
 *       to that limit's waiting heap (still tracked, not running) and looks at the next head. The
 *       entry returned holds a permit ({@link Entry#permit}) until {@link #finish}, whatever became
 *       of the fire (run, failed, retried, skipped by its misfire policy, claim lost). A permit
 *       that frees is handed at once to the limit's earliest waiting fire, which goes back into the
 *       heap at its old (due, seq), so it is due and a worker is woken as for any new head. A
 *       change that removes a waiting entry (pause, unschedule, reschedule) takes it out of the
 *       waiting heap; one that removes an entry holding a handed permit passes the permit on. So a
 *       waiting fire is released whenever a permit frees, and the misfire policy is judged by
 *       {@link FireRunner} when the fire is finally taken. Limited entries are never taken in a
 *       claim batch ({@link #takeDue}) nor marked ahead ({@link #markAhead}): a fire waiting for a
 *       permit must not read as RUNNING, nor be flagged a recovery after a crash.
 *   <li><b>Holds for a caller's transaction</b> ({@link #holdForCaller}): a worker that takes a due
 *       head whose key is held does not return it either; it sets it aside (tracked, not running)
 *       and looks at the next head, so a transaction that holds many due jobs keeps no worker
 *       waiting. The re-read at the transaction's end ({@link #reread}) dequeues it from there like
 *       any queued entry; the hold's release ({@link #releaseForCaller}, after that re-read) puts
 *       an entry still set aside back in the heap at its old (due, seq) and wakes as for a new
 *       head. An entry taken before its hold began waits on its worker instead ({@link
 *       FireRunner}). A change that may be written in a caller's transaction holds its keys
 *       <em>before</em> its write ({@link #changing(Collection, boolean)}) and then waits, on
 *       {@code batchLeft}, until no batch being written counts them ({@code inBatch}: write-backs
 *       from {@link #enterBatch} to {@link #leaveBatch}, start marks from {@code cover} to their
 *       write, cluster claims from {@link #takeDue} to their claim): a batch is formed either
 *       before the hold (then the change waits for it, so it never meets the row lock) or after
 *       (then it leaves the key out). The wait is bounded ({@link #BATCH_WAIT_NANOS}); no batch
 *       waits for anything a caller holds but that lock.
 *   <li>Cluster mode: when the store refuses a claim because the limit is full in the cluster
 *       ({@link #limitFull}), the limit <b>backs off</b> on this instance until one poll interval
 *       later: no fire of it is admitted or handed a permit, so the waiting fires do not each ask
 *       the store. The back-off's end is a deadline like the head's (the leader waits no longer; a
 *       worker leaving {@code take()} wakes a follower while one is pending and there is no
 *       leader), and {@code take()} then hands the free permits to the earliest waiting fires.
 *   <li><b>Concurrent runs</b> ({@code Overlap.allow(n)}): once a run's start is written the worker
 *       finishes the entry (queued for its next fire) and runs the handler as one of the entry's
 *       <em>lanes</em> ({@link #startLane}, which moves the entry's permit to the lane). A worker
 *       that finds n lanes going ({@link #lanesFull}) re-queues the fire with a fallback time and
 *       marks the entry waiting for a lane; {@link #laneEnded} (under the lock) gives the permit
 *       back and queues a waiting entry due at once, and {@link #finish} re-checks the lane count,
 *       so a lane that ends while the fire's worker is still deciding is never missed.
 *   <li>Backfill runs take a limit's permits too ({@link #takeBackfillPermit}): refused while the
 *       permits are held or a regular fire waits; the refusal is remembered and the backfill runner
 *       is signalled ({@link #onPermitFreed}) when a permit of the limit next becomes free.
 * </ul>
 *
 * <p>Invariants, all under the lock:
 *
 * <ul>
 *   <li>Heap order is (due, seq); {@code heapIndex == -1} iff the entry is not queued.
 *   <li>A tracked entry is queued or running, never both; an untracked job is in neither. At most
 *       one entry per key. An entry in the ready queue is running (not queued).
 *   <li>Window coverage: every job in the store due before {@link #covered}'s due time is tracked,
 *       and so is every job at that due time that a load handed out (loads resume after {@code
 *       covered} in the store's own key order, which need not be Java's). Loading a window advances
 *       {@code covered}; while a load runs, {@link #loading} holds the cursor it may reach. A job
 *       changed or finished with a due time at or before that of {@code covered} or {@code loading}
 *       is queued ({@link #inWindow}), so a load and a re-queue can never both leave a job out; a
 *       later page that returns it too finds it tracked, or finds its row no newer than {@link
 *       #finishedVersions} says, and skips it.
 *   <li>A tracked entry that is not running is in exactly one of: the heap, one limit's waiting
 *       heap ({@link Entry#waitingFor}), the entries set aside for a caller's transaction ({@link
 *       Entry#heldAside}, only while {@link #holdForCaller} holds its key). Each {@link Permits}'
 *       {@code held} counts the entries whose {@link Entry#permit} is it, the lanes and the
 *       backfill runs holding one of its permits, at most its limit; its waiting heap is empty
 *       unless all its permits are held.
 *   <li>{@code Entry.lanes} counts the entry's lanes going on this instance; {@code lanesRunning}
 *       their sum, which {@link #running()} adds to the running entries.
 *   <li>A batch made for one fire ({@link #markBatch}, {@link #markAhead}, {@link #takeDue}) never
 *       holds an entry with a change in flight or whose key {@link #holdForCaller} holds: that
 *       change's transaction may hold the row's lock, and every fire of the batch would wait for
 *       it.
 * </ul>
 */
final class Dispatcher {
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  /** Returned by {@link #take()} to the worker that must load the next window. */
  static final Entry LOAD = new Entry("<load window>", null);

  /**
   * The longest timed wait on a wall-clock deadline before the clock is read again (see the design
   * notes): the bound on how late a wall-clock step forward leaves a fire already waited for.
   */
  static final long CLOCK_RECHECK = TimeUnit.SECONDS.toNanos(1);

  private final ReentrantLock lock = new ReentrantLock();

  /** Followers wait here, untimed. */
  private final Condition available = lock.newCondition();

  /** Only the leader waits here, so a new deadline can wake exactly the leader. */
  private final Condition leaderWake = lock.newCondition();

  private final TimeSource time;
  private final int windowSize;

  /** Guarded by lock. */
  private final FireHeap heap = new FireHeap();

  /** Queued or running entries by key. Guarded by lock. */
  private final Map<String, Entry> tracked = new HashMap<>();

  /**
   * Marks of entries taken but finished unrun after shutdown (they leave {@link #tracked}), for
   * {@link #markedNotRun}. Guarded by the lock.
   */
  private final List<UnrunMark> unrunMarks = new ArrayList<>();

  /** A start mark of an entry that did not run, and the batch that writes it. */
  private record UnrunMark(dev.kairos.spi.StartMark mark, MarkBatch batch) {}

  /**
   * Versions of the records that recently ended a job's tracking at {@link #finish} (nothing left
   * to queue: paused, complete, due after the window; for a job gone, one more than the newest
   * version its run saw), so that a change's notice arriving just after, or a row a window load
   * read before the write-back, older than what the write-back stored, cannot queue the job again.
   * Bounded: such notices and loads arrive within moments of the finish. Guarded by lock.
   */
  private final Map<String, Long> finishedVersions =
      new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
          return size() > 4096;
        }
      };

  /**
   * Keys a caller's open transaction has changed (see {@link #holdForCaller}), with how many such
   * changes are pending for each. Guarded by lock; read without it only through {@link
   * #anyHeldForCaller}.
   */
  private final Map<String, Integer> heldForCaller = new HashMap<>();

  /** {@code !heldForCaller.isEmpty()}, for a check on the fire path without the lock. */
  private volatile boolean anyHeldForCaller;

  /**
   * Due entries of keys {@link #heldForCaller} holds, set aside by {@code take()} instead of handed
   * to a worker ({@link Entry#heldAside}): queued again at their old (due, seq) when the hold ends.
   * Guarded by lock.
   */
  private final Map<String, Entry> heldAside = new HashMap<>();

  /**
   * Keys of the batches being written (start marks, write-backs) while {@link #trackBatches} is on,
   * with how many such batches hold each: a change made in a caller's transaction waits for them
   * before it writes (see {@link #changing(Collection, boolean)}). Guarded by lock.
   */
  private final Map<String, Integer> inBatch = new HashMap<>();

  /** Signalled when a batch {@link #leaveBatch leaves} while a change waits for one. */
  private final Condition batchLeft = lock.newCondition();

  /** Changes waiting in {@link #awaitBatchesOf} for batches to leave. Guarded by lock. */
  private int awaitingBatches;

  /**
   * On when changes may be made in a caller's transaction ({@code callerTransactions} is set): the
   * batches' keys are then counted in {@link #inBatch}. Set before the workers start.
   */
  private volatile boolean trackBatches;

  /** Longest a change waits for the batches that hold its keys to be written. */
  static final long BATCH_WAIT_NANOS = 2_000_000_000L;

  /** The only worker that may wait timed; null if none. Guarded by lock. */
  private Thread leader;

  /** Next sequence number. Guarded by lock. */
  private long seq;

  /**
   * Set once by {@link #shutdown()}, under the lock; volatile because {@link #beginRun} reads it
   * without.
   */
  private volatile boolean shutdown;

  /** See the coverage invariant; null before the first load. Guarded by lock. */
  private WindowCursor covered;

  /** The cursor an in-flight load may reach, or null when no load runs. Guarded by lock. */
  private WindowCursor loading;

  /** True if the last load stopped at its size limit: more jobs are due within the horizon. */
  private boolean truncated;

  /** When the next window load is due (epoch nanos). Guarded by lock. */
  private long nextLoad = Long.MAX_VALUE;

  /**
   * Load no later than this ({@link Entry#nanos}), or {@code Long.MAX_VALUE}: a job dropped after
   * an unexpected engine failure is read again when the load settles ({@link #readAgainBy}), which
   * clears it first ({@link #rereadTaken}).
   */
  private volatile long rereadAt = Long.MAX_VALUE;

  /** Cluster mode: which fires this instance queues late (see ClusterShare). Guarded by lock. */
  private ClusterShare share = ClusterShare.NONE;

  /**
   * Cluster mode: running entries claimed in a batch by another worker, waiting for a worker to run
   * them ({@link #handOut}); {@link #take()} hands these out first. Guarded by lock.
   */
  private final java.util.ArrayDeque<Entry> ready = new java.util.ArrayDeque<>();

  /** Workers waiting timed right now, and the most ever seen. Guarded by lock. */
  private int timedWaiters;

  private int maxTimedWaiters;

  /**
   * Concurrency limits by handler name; the map is immutable, each {@link Permits} is guarded by
   * lock. Empty when no limit is configured.
   */
  private final Map<String, Permits> permits;

  /** The same limits, each once (immutable list). */
  private final List<Permits> limits;

  /** Concurrent runs (lanes) going on this instance. Guarded by lock. */
  private int lanesRunning;

  /** Called when a permit a backfill run waits for becomes free; see {@link #onPermitFreed}. */
  private volatile Runnable permitFreed = () -> {};

  /**
   * Single-instance mode: a job whose row shows a start after its last end ({@link
   * dev.kairos.spi.RunStats#startNotEnded}) and that runs nowhere here had a run cut off, and its
   * next run here is flagged as a recovery, as one loaded {@code RUNNING} is. That covers the runs
   * a {@code RUNNING} state cannot mark: those of a paused job. Set before the first load; read
   * under the lock.
   */
  private boolean recoversStartsNotEnded;

  Dispatcher(TimeSource time, int windowSize) {
    this(time, windowSize, List.of());
  }

  /**
   * Turns on {@link #recoversStartsNotEnded} (single-instance mode); call before the first load.
   */
  void recoverStartsNotEnded() {
    lock.lock();
    try {
      recoversStartsNotEnded = true;
    } finally {
      lock.unlock();
    }
  }

  /** Call only with the lock held. True if a run from {@code r} is a recovery. */
  private boolean cutOff(JobRecord r) {
    return r.state() == JobState.RUNNING || startNotEnded(r);
  }

  /**
   * Call only with the lock held. See {@link #recoversStartsNotEnded}; not for a job whose runs may
   * overlap ({@code allow(n)}: its runs are recorded, and recovered, one by one).
   */
  private boolean startNotEnded(JobRecord r) {
    return recoversStartsNotEnded && r.stats().startNotEnded() && FireRunner.concurrentRuns(r) <= 1;
  }

  Dispatcher(TimeSource time, int windowSize, List<dev.kairos.ConcurrencyLimit> limits) {
    this.time = time;
    this.windowSize = windowSize;
    Map<String, Permits> byHandler = new HashMap<>();
    for (dev.kairos.ConcurrencyLimit l : limits) {
      Permits p = new Permits(l);
      for (String h : l.handlers()) {
        byHandler.put(h, p);
      }
    }
    this.permits = Map.copyOf(byHandler);
    this.limits = List.copyOf(new java.util.LinkedHashSet<>(byHandler.values()));
  }

  /**
   * Blocks until an entry is due and returns it, marked running; or returns {@link #LOAD} to the
   * worker that must load the next window; or null after shutdown.
   */
  Entry take() throws InterruptedException {
    lock.lockInterruptibly();
    return takeHoldingLock();
  }

  /** Returned by {@link #finishAndTake} when the finished entry had a trigger requested. */
  static final Entry TRIGGERED = new Entry("<trigger requested>", null);

  /**
   * {@link #finish}es {@code done} and {@link #take}s the next entry in one acquisition of the lock
   * (a worker's finish and its next take were half of a fire's acquisitions, and the most
   * contended). If a trigger was requested during {@code done}'s run, nothing is finished nor
   * taken: returns {@link #TRIGGERED}, and the worker applies the trigger and finishes the entry
   * itself (under the scheduler's change lock, which may not be taken inside this one). The finish
   * happens before any wait, and even if the thread is interrupted.
   *
   * @param stored the job as {@code done}'s write-back left it, or null if it is gone
   */
  Entry finishAndTake(Entry done, JobRecord stored) throws InterruptedException {
    lock.lock();
    if (done.triggerRequested) {
      lock.unlock();
      return TRIGGERED;
    }
    try {
      finish(done, stored); // reentrant
    } catch (RuntimeException | Error ex) {
      lock.unlock();
      throw ex;
    }
    if (Thread.interrupted()) { // as take() would: its lockInterruptibly throws
      lock.unlock();
      throw new InterruptedException();
    }
    return takeHoldingLock();
  }

  /** {@link #take}'s body; call holding the lock once, which this releases. */
  private Entry takeHoldingLock() throws InterruptedException {
    try {
      for (; ; ) {
        if (!ready.isEmpty()) {
          return ready.poll(); // even after shutdown: its worker releases the claim
        }
        if (shutdown) {
          return null;
        }
        long now = Entry.nanos(time.now());
        releaseWaiters(now);
        if (loading == null && loadDue(now)) {
          loading = new WindowCursor(Instant.MAX, "");
          return LOAD; // before due fires: the other workers run them while this one loads
        }
        Entry first = heap.peek();
        if (first != null && first.due <= now) {
          Entry next = heap.poll();
          if (setAsideIfHeld(next)) {
            continue; // its worker would only wait for the caller's transaction
          }
          if (admit(next, now)) {
            return start(next);
          }
          continue; // it waits for a permit: look at the next head
        }
        long deadline = Math.min(first == null ? Long.MAX_VALUE : first.due, loadDeadline());
        deadline = Math.min(deadline, backoffDeadline());
        first = null; // don't hold a reference while waiting
        if (deadline == Long.MAX_VALUE || leader != null) {
          available.await(); // follower
        } else {
          awaitAsLeader(deadline);
        }
      }
    } finally {
      if (loading == null && truncated && nextPageDue()) {
        deadlineChanged(); // this take made a load due (see loadDue): a waiting worker does it
      } else if ((leader == null && (heap.peek() != null || backoffDeadline() != Long.MAX_VALUE))
          || !ready.isEmpty()) {
        available.signal();
      }
      lock.unlock();
    }
  }

  /** Call only with the lock held, and with no leader. */
  private void awaitAsLeader(long deadline) throws InterruptedException {
    Thread me = Thread.currentThread();
    leader = me;
    timedWaiters++;
    maxTimedWaiters = Math.max(maxTimedWaiters, timedWaiters);
    try {
      long nanos = time.nanosUntil(Instant.ofEpochSecond(0, deadline));
      if (nanos == Long.MAX_VALUE) {
        leaderWake.await(); // a manual clock: its advance calls wake()
      } else if (nanos > 0) {
        leaderWake.awaitNanos(Math.min(nanos, CLOCK_RECHECK)); // then re-read: the clock may step
      }
    } finally {
      timedWaiters--;
      if (leader == me) {
        leader = null;
      }
    }
  }

  /**
   * Call only with the lock held. A truncated window is read on when fewer than half a window of
   * fires are queued, those waiting for a permit included (else a backlog of them would load window
   * after window while the heap stays empty); or when the heap holds nothing due within the loaded
   * part and fewer than half a window wait for a permit. Runs that finish while a load runs are
   * queued against the load's reach, so the heap may hold half a window of fires beyond {@link
   * #covered}; they must not keep the rows due before them unread (those waited until the later
   * fires had run).
   */
  private boolean loadDue(long now) {
    return truncated ? nextPageDue() : now >= Math.min(nextLoad, rereadAt);
  }

  /** Call only with the lock held, the window truncated: see {@link #loadDue}. */
  private boolean nextPageDue() {
    int waiting = waitingLocked();
    if (heap.size() + waiting < windowSize / 2) {
      return true;
    }
    Entry first = heap.peek(); // its job's due time, not the entry's (a cluster share delays it)
    return first != null
        && first.record.dueTime().isAfter(covered.dueTime())
        && waiting < windowSize / 2;
  }

  /**
   * Queued entries, those waiting for a permit or set aside for a caller's transaction included.
   * Call only with the lock held.
   */
  private int queuedLocked() {
    return heap.size() + waitingLocked() + heldAside.size();
  }

  /** Entries waiting for a permit. Call only with the lock held. */
  private int waitingLocked() {
    int waiting = 0;
    for (Permits p : limits) {
      waiting += p.waiting.size();
    }
    return waiting;
  }

  /** Call only with the lock held. */
  private long loadDeadline() {
    return loading != null || truncated ? Long.MAX_VALUE : Math.min(nextLoad, rereadAt);
  }

  /**
   * Call only with the lock held, with {@code e} just taken from the heap. True if {@code e} may
   * run: its handler has no limit, or it holds or now takes a permit; otherwise it is moved to its
   * limit's waiting heap.
   */
  private boolean admit(Entry e, long now) {
    if (e.permit != null) {
      return true; // handed to it when a run ended
    }
    Permits p = permitsFor(e.record);
    if (p == null) {
      return true;
    }
    if (p.free() && now >= p.backoffUntil) {
      p.held++;
      e.permit = p;
      return true;
    }
    e.waitingFor = p;
    p.waiting.add(e);
    return false;
  }

  /** The limit of the record's handler, or null. Immutable map: no lock needed. */
  private Permits permitsFor(JobRecord r) {
    return permits.isEmpty() || r == null ? null : permits.get(r.spec().handler());
  }

  /** The concurrency limit of the record's handler, if any. */
  java.util.Optional<dev.kairos.ConcurrencyLimit> limitOf(JobRecord r) {
    return java.util.Optional.ofNullable(permitsFor(r)).map(p -> p.limit);
  }

  // ---- concurrent runs of one job (Overlap.allow) --------------------------------------------
  //
  // A run under allow(n) starts by writing the job's schedule forward; its worker then finishes
  // the entry (it is queued for its next fire) and runs the handler as a "lane" of the entry. The
  // entry counts its lanes here (Entry.lanes, under the lock). A fire that finds n lanes going
  // here waits: queued no earlier than a fallback time, and queued due at once by the first lane
  // that ends (laneEnded); finish() re-checks the count under the lock, so a lane that ends
  // between the check and finish() is not missed. A lane keeps the entry's concurrency-limit
  // permit until it ends.

  /**
   * Call by the worker running {@code e}, before the run's start is written: true if {@code n} runs
   * of the job are going here, then the fire waits ({@link #finish} queues it no earlier than
   * {@code fallback}, or at once when one of them ends).
   */
  boolean lanesFull(Entry e, int n, Instant fallback) {
    lock.lock();
    try {
      if (e.lanes < n) {
        e.laneWaits = false;
        return false;
      }
      e.laneWaits = true;
      e.laneBound = n;
      e.notBefore = Entry.nanos(fallback);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The store refused the start because the job's bound is reached there (runs on other instances,
   * or crashed runs not yet run again): the fire waits until {@code fallback}, or until one of its
   * runs here ends, whichever is first.
   */
  void lanesFullInStore(Entry e, Instant fallback) {
    lock.lock();
    try {
      e.notBefore = Entry.nanos(fallback);
      e.laneWaits = e.lanes > 0;
      e.laneBound = e.lanes;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The running entry's run was started concurrently (its start written): it becomes one of the
   * entry's lanes, taking over the entry's permit, which it returns. The caller then finishes the
   * entry, which queues it for its next fire, and passes the permit to {@link #laneEnded}.
   */
  Permits startLane(Entry e) {
    lock.lock();
    try {
      Permits p = e.permit;
      e.permit = null;
      e.lanes++;
      lanesRunning++;
      return p;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A lane of {@code e} ended: its permit (if any) is given back, and a fire of the entry that
   * waits for a lane is queued due at once (if it is running, {@link #finish} sees the count).
   */
  void laneEnded(Entry e, Permits permit) {
    lock.lock();
    try {
      if (permit != null) {
        giveBack(permit);
      }
      e.lanes--;
      lanesRunning--;
      if (e.laneWaits
          && e.lanes < e.laneBound
          && !e.running
          && e.heapIndex >= 0
          && e.waitingFor == null
          && tracked.get(e.key) == e) {
        e.laneWaits = false;
        heap.remove(e);
        enqueue(e, e.record);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Each limit's permits held and fires waiting, read together under the lock (so no count is from
   * a different moment than another), ordered by limit name.
   *
   * @return one status per configured limit; empty if none
   */
  List<dev.kairos.LimitStatus> limitStatus() {
    if (limits.isEmpty()) {
      return List.of();
    }
    int[] held = new int[limits.size()];
    int[] waiting = new int[limits.size()];
    lock.lock();
    try {
      for (int i = 0; i < held.length; i++) {
        held[i] = limits.get(i).held;
        waiting[i] = limits.get(i).waiting.size();
      }
    } finally {
      lock.unlock();
    }
    List<dev.kairos.LimitStatus> out = new ArrayList<>(held.length);
    for (int i = 0; i < held.length; i++) {
      dev.kairos.ConcurrencyLimit l = limits.get(i).limit;
      out.add(new dev.kairos.LimitStatus(l.name(), l.permits(), l.handlers(), held[i], waiting[i]));
    }
    out.sort(java.util.Comparator.comparing(dev.kairos.LimitStatus::name));
    return List.copyOf(out);
  }

  /**
   * Backfill runs ({@link Backfills}) count against the concurrency limit of their handler: takes
   * one of its permits for a backfill run, if one is free, no regular fire waits for one (regular
   * fires come first) and no cluster back-off is in force. When this answers false, the backfill
   * runner is told through {@link #onPermitFreed} once a permit of the limit becomes free.
   *
   * @param handler the handler of the job whose slot is to run
   * @return true if the run may start: the handler has no limit, or a permit was taken for it (give
   *     it back with {@link #releaseBackfillPermit})
   */
  boolean takeBackfillPermit(String handler) {
    Permits p = permits.isEmpty() ? null : permits.get(handler);
    if (p == null) {
      return true;
    }
    lock.lock();
    try {
      if (p.free() && p.waiting.size() == 0 && Entry.nanos(time.now()) >= p.backoffUntil) {
        p.held++;
        return true;
      }
      p.backfillWaits = true;
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Gives back a permit {@link #takeBackfillPermit} took for {@code handler}'s backfill run: it is
   * handed to the earliest waiting fire of the limit, or becomes free.
   *
   * @param handler the handler the permit was taken for
   */
  void releaseBackfillPermit(String handler) {
    Permits p = permits.isEmpty() ? null : permits.get(handler);
    if (p == null) {
      return;
    }
    lock.lock();
    try {
      giveBack(p);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sets what is called (with the lock held: it must only signal) when a permit becomes free that a
   * backfill run was refused; the scheduler wakes its backfill runner with it.
   *
   * @param wake the signal, quick and lock-free of the dispatcher
   */
  void onPermitFreed(Runnable wake) {
    this.permitFreed = wake;
  }

  /**
   * Call only with the lock held. Gives up {@code e}'s permit, if it holds one: it is handed to the
   * limit's earliest waiting entry, which goes back into the heap (due, so a worker takes it), or
   * else becomes free.
   */
  private void releasePermit(Entry e) {
    Permits p = e.permit;
    if (p == null) {
      return;
    }
    e.permit = null;
    giveBack(p);
  }

  /**
   * Call only with the lock held. Gives up one held permit of {@code p}: it is handed to the
   * limit's earliest waiting entry, which goes back into the heap, or else becomes free (and a
   * backfill run that waits for it is told).
   */
  private void giveBack(Permits p) {
    if (p.waiting.size() == 0 || Entry.nanos(time.now()) < p.backoffUntil) {
      p.held--; // a back-off in force: releaseWaiters() hands the permit on when it ends
      if (p.waiting.size() > 0) {
        deadlineChanged(); // the back-off's end may now be the earliest deadline
      } else if (p.backfillWaits) {
        p.backfillWaits = false;
        permitFreed.run();
      }
      return;
    }
    Entry next = handPermit(p); // handed over: held stays the same
    if (heap.peek() == next) {
      deadlineChanged();
    }
  }

  /**
   * Gives {@code p}'s permit to its earliest waiting fire and queues that fire again at its old
   * (due, seq); returns it. The caller accounts for {@code held}. Call only with the lock held.
   */
  private Entry handPermit(Permits p) {
    Entry next = p.waiting.poll();
    next.waitingFor = null;
    next.permit = p;
    heap.add(next);
    return next;
  }

  /**
   * Call only with the lock held. For each limit whose cluster back-off has ended, hands its free
   * permits to its earliest waiting entries and puts them back in the heap.
   */
  private void releaseWaiters(long now) {
    if (permits.isEmpty()) {
      return;
    }
    for (Permits p : limits) {
      while (p.waiting.size() > 0 && p.free() && now >= p.backoffUntil) {
        handPermit(p);
        p.held++;
      }
    }
  }

  /**
   * Call only with the lock held. The earliest end of a cluster back-off that keeps waiting fires
   * from free permits, or {@code Long.MAX_VALUE}: the leader waits no longer than that.
   */
  private long backoffDeadline() {
    long deadline = Long.MAX_VALUE;
    for (Permits p : limits) {
      if (p.waiting.size() > 0 && p.free()) {
        deadline = Math.min(deadline, p.backoffUntil);
      }
    }
    return deadline;
  }

  /**
   * Cluster mode: the claim of the running entry {@code e} was refused because its limit is full in
   * the cluster. {@link #finish} queues it again at {@code until} (as {@link #notBefore}), and
   * until then no fire of that limit is admitted here nor handed a freed permit: waiting fires do
   * not each ask the store again; when the back-off ends they get the free permits, earliest due
   * first.
   */
  void limitFull(Entry e, Instant until) {
    lock.lock();
    try {
      long t = Entry.nanos(until);
      e.notBefore = t;
      if (e.permit != null) {
        e.permit.backoffUntil = Math.max(e.permit.backoffUntil, t);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Call only with the lock held, {@code e} not running. Takes {@code e} out of the heap or the
   * waiting heap it is in, and passes on a permit it was handed.
   */
  private void dequeue(Entry e) {
    if (e.heldAside) {
      heldAside.remove(e.key);
      e.heldAside = false;
    } else if (e.waitingFor != null) {
      e.waitingFor.waiting.remove(e);
      e.waitingFor = null;
    } else {
      heap.remove(e);
    }
    releasePermit(e);
  }

  /** Call only with the lock held. */
  private Entry start(Entry e) {
    e.running = true;
    return e;
  }

  /**
   * Like {@link #take()} without waiting, for the step API: a due entry, {@link #LOAD}, or null if
   * nothing is due at the time source's now.
   */
  Entry poll() {
    lock.lock();
    try {
      long now = Entry.nanos(time.now());
      if (shutdown) {
        return null;
      }
      releaseWaiters(now);
      for (Entry first = heap.peek(); first != null && first.due <= now; first = heap.peek()) {
        Entry next = heap.poll();
        if (setAsideIfHeld(next)) {
          continue;
        }
        if (admit(next, now)) {
          return start(next);
        }
      }
      if (loading == null && loadDue(now)) {
        loading = new WindowCursor(Instant.MAX, "");
        return LOAD;
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /** When the dispatcher next has work: the head's due time or the next load, if any. */
  Instant nextWakeUp() {
    lock.lock();
    try {
      Entry first = heap.peek();
      long deadline = Math.min(first == null ? Long.MAX_VALUE : first.due, loadDeadline());
      deadline = Math.min(deadline, backoffDeadline());
      return deadline == Long.MAX_VALUE ? null : Instant.ofEpochSecond(0, deadline);
    } finally {
      lock.unlock();
    }
  }

  // ---- window loading ------------------------------------------------------------------------

  /** The cursor after which the next load starts (null: from the beginning). */
  WindowCursor beginLoad(Instant until) {
    lock.lock();
    try {
      loading = new WindowCursor(until, "");
      return covered;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends a load: queues the loaded jobs that are not tracked, advances the covered cursor and sets
   * when the next load is due. The cursor moves to the last row the store returned, kept or not
   * (rows are filtered: unreadable, handler not registered here), so that a page whose last rows
   * were all filtered out neither hides the rows after it until the next periodic load nor is read
   * again.
   *
   * @param rows the jobs to queue, in (due, key) order
   * @param until the horizon the load asked for
   * @param lastRead the cursor of the last row read if the store returned as many rows as asked
   *     (more may be due before until), else null
   * @param nextLoadAt when to load again if not full
   */
  void endLoad(List<JobRecord> rows, Instant until, WindowCursor lastRead, Instant nextLoadAt) {
    lock.lock();
    try {
      for (JobRecord r : rows) {
        Long finished = finishedVersions.get(r.key());
        if (finished != null && r.version() < finished) {
          continue; // read before a write-back that has since ended the job's tracking
        }
        if (!tracked.containsKey(r.key())) {
          Entry e = new Entry(r.key(), r);
          e.recovery = cutOff(r);
          if (e.recovery) {
            log.trace(
                "job '{}': loaded {} at version {}: a recovery", r.key(), r.state(), r.version());
          }
          tracked.put(r.key(), e);
          enqueue(e, r);
        }
      }
      covered = lastRead != null ? lastRead : new WindowCursor(until, "");
      truncated = lastRead != null;
      loading = null;
      nextLoad = Entry.nanos(nextLoadAt);
      deadlineChanged();
    } finally {
      lock.unlock();
    }
  }

  /**
   * A load failed: nothing is covered beyond what was; retry at {@code retryAt}, from the covered
   * cursor. A truncated window waits for that time too (it would otherwise be loaded again at once,
   * in a loop of failing loads, now that loads come before due fires).
   */
  void abortLoad(Instant retryAt) {
    lock.lock();
    try {
      loading = null;
      truncated = false;
      nextLoad = Entry.nanos(retryAt);
      deadlineChanged();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Call only with the lock held. True if the record is due at or before the loaded window's end
   * ({@link #covered}, or an in-flight load's reach): a job changed or finished with such a due
   * time is queued here, since no later page may return it.
   *
   * <p>Due times only: the store orders keys by its own collation (a PostgreSQL database's
   * en_US.UTF-8 puts {@code a} before {@code B}; Java's {@code compareTo} does not), and pages
   * resume after the last row in that order, so at the end's due time the dispatcher cannot tell
   * which keys a page has handed out. Comparing keys in Java's order left a job whose key came
   * after the end's in Java's order and before it in the store's out of the heap and out of every
   * later page: it never fired again. A job queued here that a later page returns too is skipped
   * there: tracked, or no newer than its last finish ({@link #finishedVersions}).
   */
  private boolean inWindow(JobRecord r) {
    Instant due = r.dueTime();
    return (covered != null && !due.isAfter(covered.dueTime()))
        || (loading != null && !due.isAfter(loading.dueTime()));
  }

  /**
   * Call only with the lock held. True if the record is due strictly before the loaded window's
   * end: every such job has been handed out by a load (at the end's own due time, a later page may
   * still hand it out; see {@link #inWindow}).
   */
  private boolean beforeWindowEnd(JobRecord r) {
    Instant due = r.dueTime();
    return (covered != null && due.isBefore(covered.dueTime()))
        || (loading != null && due.isBefore(loading.dueTime()));
  }

  // ---- changes -------------------------------------------------------------------------------

  /**
   * A caller's open transaction wrote these jobs' rows (a change through a store that joins the
   * caller's transactions): it holds their row locks until it ends, which may be long. Until {@link
   * #releaseForCaller}, these jobs are left out of every batch another job's fire waits for (start
   * marks written ahead, claims taken in a batch, batched write-backs; see {@link
   * #heldForCaller(String)}): a batch would wait for the lock, and every fire in it with it. Their
   * own fires and write-backs wait alone.
   */
  void holdForCaller(Collection<String> keys) {
    lock.lock();
    try {
      holdLocked(keys);
    } finally {
      lock.unlock();
    }
  }

  /** Call only with the lock held: {@link #holdForCaller}. */
  private void holdLocked(Collection<String> keys) {
    for (String key : keys) {
      heldForCaller.merge(key, 1, Integer::sum);
    }
    anyHeldForCaller = !heldForCaller.isEmpty();
  }

  /** The caller's transaction that {@link #holdForCaller held} these keys has ended. */
  void releaseForCaller(Collection<String> keys) {
    lock.lock();
    try {
      releaseLocked(keys);
    } finally {
      lock.unlock();
    }
  }

  /** Call only with the lock held: {@link #releaseForCaller}. */
  private void releaseLocked(Collection<String> keys) {
    for (String key : keys) {
      if (heldForCaller.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1) == null) {
        requeueHeldAside(key);
      }
    }
    anyHeldForCaller = !heldForCaller.isEmpty();
  }

  /**
   * Call only with the lock held, {@code e} just taken from the heap. True if a caller's open
   * transaction holds its row: then it is set aside, tracked and not running, until {@link
   * #releaseForCaller} queues it again (a change that reaches it first, the re-read at the
   * transaction's end, dequeues it from there). Its worker would otherwise wait for the
   * transaction's end, and enough such fires would hold every worker. A concurrency-limit permit
   * handed to it while it waited for one is passed on, as when a change dequeues it.
   */
  private boolean setAsideIfHeld(Entry e) {
    if (!anyHeldForCaller || !heldForCaller.containsKey(e.key)) {
      return false;
    }
    e.heldAside = true;
    heldAside.put(e.key, e);
    releasePermit(e); // one handed to it while it waited goes to the limit's next fire meanwhile
    return true;
  }

  /**
   * Call only with the lock held, the hold on {@code key} ended: its entry set aside while due goes
   * back in the heap at its old (due, seq), or due at once if it was waiting for one of its own
   * runs here that has since ended.
   */
  private void requeueHeldAside(String key) {
    Entry e = heldAside.remove(key);
    if (e == null) {
      return;
    }
    e.heldAside = false;
    if (e.laneWaits && e.lanes < e.laneBound) {
      e.laneWaits = false; // see laneEnded, which found it out of the heap
      enqueue(e, e.record);
      return;
    }
    heap.add(e);
    if (heap.peek() == e) {
      deadlineChanged();
    }
  }

  /** True if a caller's open transaction holds some job's row ({@link #holdForCaller}). */
  boolean anyHeldForCaller() {
    return anyHeldForCaller;
  }

  /** True if a caller's open transaction holds this job's row ({@link #holdForCaller}). */
  boolean heldForCaller(String key) {
    if (!anyHeldForCaller) {
      return false; // the common case: one volatile read
    }
    lock.lock();
    try {
      return heldForCaller.containsKey(key);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies a stored change of a job's schedule: re-queues, dequeues or, if the job is running,
   * remembers the change for when it finishes. {@code record} null means the job was deleted.
   */
  void changed(String key, JobRecord record) {
    lock.lock();
    try {
      Entry e = tracked.get(key);
      if (e != null && e.running) {
        JobRecord before = e.changedWhileRunning;
        if (record == null || before == null || record.version() >= before.version()) {
          e.changedWhileRunning = record;
          e.unscheduled = record == null;
        }
        return;
      }
      Long finished = e == null ? finishedVersions.get(key) : null;
      if (record != null && finished != null && record.version() < finished) {
        return; // older than what the last write-back stored: see finishedVersions
      }
      finishedVersions.remove(key);
      if (e != null && record != null && record.version() < e.record.version()) {
        // A change's notice that arrives after a worker re-queued the job from its write-back,
        // which merged that very change into a newer record: queueing the older one would run
        // the fire the write-back moved past again.
        return;
      }
      if (e != null
          && record != null
          && record.version() == e.record.version()
          && java.util.Objects.equals(record.dueTime(), e.record.dueTime())) {
        return; // already queued as it is
      }
      if (e != null) {
        dequeue(e);
        tracked.remove(key);
      }
      if (record != null && record.dueTime() != null && inWindow(record)) {
        Entry fresh = e != null ? e : new Entry(key, record);
        if (e == null) { // one queued here already was judged at its load
          // A job resumed after a restart that cut off a run of it made while it was paused.
          fresh.recovery = startNotEnded(record);
        }
        tracked.put(key, fresh);
        enqueue(fresh, record);
      } else if (record != null && record.dueTime() == null) {
        // Paused or complete: an older notice (a cluster's change feed runs behind) must not
        // queue the job again.
        finishedVersions.put(key, record.version());
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The job as the store holds it, read again after a change whose outcome is unknown: {@link
   * #changed}, unless its entry is running and the row is no newer than the record the run was
   * taken from (the change did not commit; remembering that older row for the run's end could queue
   * the fire that ran again, should its write-back find no row).
   */
  void reread(String key, JobRecord record) {
    lock.lock();
    try {
      Entry e = tracked.get(key);
      if (e != null && e.running && record != null && record.version() <= e.record.version()) {
        return;
      }
      changed(key, record);
    } finally {
      lock.unlock();
    }
  }

  /** {@link #changed} for each record of a batch, under one acquisition of the lock. */
  void changedAll(List<JobRecord> records) {
    lock.lock();
    try {
      for (JobRecord r : records) {
        changed(r.key(), r);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@link #changed changed(key, null)} for each deleted key, under one acquisition of the lock.
   */
  void deletedAll(Collection<String> keys) {
    lock.lock();
    try {
      for (String key : keys) {
        changed(key, null);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies a change read from a cluster's change feed: like {@link #changed}, but a job running
   * here is left to its own write-back, a record older than the tracked one is ignored, and a job
   * claimed by another instance (state RUNNING) is dequeued until its write-back arrives.
   */
  void changedElsewhere(String key, JobRecord record) {
    lock.lock();
    try {
      Entry e = tracked.get(key);
      if (e != null && e.running) {
        if (record != null
            && (e.seenElsewhere == null || record.version() > e.seenElsewhere.version())) {
          e.seenElsewhere = record; // for a lost claim only: see lostClaimSettled
        }
        return;
      }
      if (e != null && record != null && record.version() < e.record.version()) {
        return;
      }
      changed(key, record == null || record.state() == JobState.RUNNING ? null : record);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The overdue sweep's question before it applies a row: true if the row is due before the loaded
   * window's end and this instance does not track the job at the row's version or newer (queued, or
   * taken by a worker). A row beyond a truncated window, or at its end's due time, is not missing:
   * a later load reads it.
   */
  boolean missing(JobRecord r) {
    lock.lock();
    try {
      Entry e = tracked.get(r.key());
      return beforeWindowEnd(r) && (e == null || (!e.running && e.record.version() < r.version()));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Queues a job whose claim's lease expired on another instance, flagged as a recovery; the worker
   * that takes it claims it again.
   */
  void recover(JobRecord record) {
    lock.lock();
    try {
      Entry e = tracked.get(record.key());
      if (e != null && e.running) {
        return;
      }
      if (e != null) {
        dequeue(e);
      }
      Entry fresh = e != null ? e : new Entry(record.key(), record);
      fresh.recovery = true;
      tracked.put(record.key(), fresh);
      enqueue(fresh, record, 0); // a dead instance's fire: whoever sees it first recovers it
    } finally {
      lock.unlock();
    }
  }

  /**
   * A worker finished with a running entry: re-queue it from the newest record (a change made
   * during the run wins over the write-back), or stop tracking it.
   *
   * @param stored the job as the write-back left it, or null if it is gone
   */
  void finish(Entry e, JobRecord stored) {
    lock.lock();
    try {
      releasePermit(e); // first: the earliest waiting fire goes before this job's next
      e.running = false;
      e.recovery = false;
      if (shutdown && !e.started && e.mark != null && e.markedVersion == e.record.version()) {
        // Taken, then closed before its run: its mark (if written) is cleared with the queued ones.
        unrunMarks.add(new UnrunMark(new dev.kairos.spi.StartMark(e.key, e.markedVersion), e.mark));
      }
      e.started = false;
      e.mark = null;
      e.claimedFire = null;
      e.seenElsewhere = null;
      e.triggerRequested = false;
      e.triggerTaken = false;
      long seen =
          e.changedWhileRunning == null
              ? e.record.version()
              : Math.max(e.record.version(), e.changedWhileRunning.version());
      JobRecord r = e.unscheduled ? null : newest(e.changedWhileRunning, stored);
      e.changedWhileRunning = null;
      e.unscheduled = false;
      long notBefore = e.notBefore;
      e.notBefore = Long.MIN_VALUE;
      if (e.laneWaits && e.lanes < e.laneBound) { // a run of it here ended meanwhile: no wait
        e.laneWaits = false;
        notBefore = Long.MIN_VALUE;
      }
      if (!shutdown && r != null && r.dueTime() != null && inWindow(r)) {
        long delay = share.delayNanos(e.key);
        if (notBefore != Long.MIN_VALUE) { // see Entry.notBefore
          long early = Math.max(0, notBefore - Entry.nanos(r.dueTime()));
          delay = early > Long.MAX_VALUE - delay ? Long.MAX_VALUE : delay + early;
        }
        enqueue(e, r, delay);
      } else {
        tracked.remove(e.key);
        JobRecord last = r != null ? r : stored;
        // Gone (or its write-back given up): a page read before may still return the row at a
        // version this run saw, at the window end's due time (see inWindow); it must not run again.
        finishedVersions.put(e.key, last != null ? last.version() : seen + 1);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The newer of a change made during the run and the record the write-back left: the higher
   * version wins; on a tie the write-back's (it carries the same schedule state and the run's
   * statistics). The write-back's merge rule ({@link dev.kairos.spi.RunResult#applyTo}) increments
   * the version when it moves a change's timetable past the fire that ran, so a change's copy held
   * here can never re-arm that fire.
   */
  private static JobRecord newest(JobRecord changed, JobRecord stored) {
    if (changed == null) {
      return stored;
    }
    if (stored == null) {
      return changed;
    }
    return stored.version() >= changed.version() ? stored : changed;
  }

  /**
   * Called by the worker after any claim and before the handler runs: false if a change reached the
   * entry since it was taken (pause, reschedule, unschedule, a newer record), so a change that has
   * returned to its caller is never overtaken by a run it did not see. Then the worker runs nothing
   * and {@link #finish} re-queues the entry from the change.
   *
   * @return the run's start, read before the flags (so it precedes the return of any change that
   *     does not stop it), or null if the run must not start
   */
  Instant beginRun(Entry e) {
    // Without the lock (it was two of a fire's four acquisitions, and the one most contended): the
    // start is read first, then the volatile flags that every stopping change sets under the lock.
    // A change whose flag this read misses comes after it in the flags' order, so the start read
    // before precedes that change's return, as the lock gave.
    Instant start = time.now();
    if (e.unscheduled || e.changedWhileRunning != null || shutdown) {
      return null;
    }
    e.startedAt = start; // before the volatile write that publishes it
    e.started = true; // the worker owns the running entry; finish reads it after the hand-back
    return start;
  }

  /**
   * A schedule change of these jobs is about to be written to the store: counted on each tracked
   * entry until {@link #changeEnded}, so that a worker whose run of the job starts meanwhile marks
   * it again after its own start mark, which the change's new version may have made miss (see
   * {@link Entry#changesInFlight}).
   */
  void changing(Collection<String> keys) {
    changing(keys, false);
  }

  /**
   * {@link #changing(Collection)}; with {@code callerTransaction} (the change may be written in a
   * caller's open transaction, which would keep the rows locked until it ends) the keys are also
   * {@linkplain #holdForCaller held} from now, before the write, so that no batch formed from now
   * on takes them, and this waits (at most {@link #BATCH_WAIT_NANOS}) until no batch formed before
   * holds them either: a batch whose store call met the transaction's row lock would wait for the
   * transaction's end, and every fire and write-back in the batch with it. Such a batch is written
   * in milliseconds; the bound only keeps a batch caught by some other lock of the transaction's
   * (written after it began) from holding the change up for longer.
   */
  void changing(Collection<String> keys, boolean callerTransaction) {
    lock.lock();
    try {
      countChangesLocked(keys, 1);
      if (callerTransaction) {
        holdLocked(keys);
        awaitBatchesOf(keys);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The change {@link #changing} announced is written (its notice applied) or has failed. Call once
   * for each call of {@code changing}, with the same keys, after the change's {@link #changed}
   * notices.
   */
  void changeEnded(Collection<String> keys) {
    changeEnded(keys, false);
  }

  /**
   * {@link #changeEnded(Collection)} for {@link #changing(Collection, boolean)}: releases the hold
   * that call took (the transaction's own hold, taken after the write, stays until it ends).
   */
  void changeEnded(Collection<String> keys, boolean callerTransaction) {
    lock.lock();
    try {
      if (callerTransaction) {
        releaseLocked(keys);
      }
      countChangesLocked(keys, -1);
    } finally {
      lock.unlock();
    }
  }

  /** Counts batches on from now on: see {@link #inBatch}. Call before the workers start. */
  void trackBatches() {
    trackBatches = true;
  }

  /** True if batches are counted ({@link #trackBatches()}). */
  boolean tracksBatches() {
    return trackBatches;
  }

  /**
   * A batch of write-backs is about to be written: of these keys, returns those a caller's open
   * transaction holds (to be set aside, as {@link #heldForCaller(String)} says) and counts the
   * others as in a batch until {@link #leaveBatch}, in one acquisition of the lock, so that a
   * change that holds a key after this look waits for the batch ({@link #changing(Collection,
   * boolean)}). Without {@link #trackBatches()} only the holds are looked at.
   */
  Set<String> enterBatch(List<String> keys) {
    if (!anyHeldForCaller && !trackBatches) {
      return Set.of(); // the common case: two volatile reads
    }
    lock.lock();
    try {
      Set<String> held = Set.of();
      for (String key : keys) {
        if (heldForCaller.containsKey(key)) {
          held = held.isEmpty() ? new java.util.HashSet<>() : held;
          held.add(key);
        } else {
          countInBatch(key);
        }
      }
      return held;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The batch that {@link #enterBatch} (or a start-mark batch's {@code cover}) counted these keys
   * for has been written, or has failed. Call with the keys it counted (none when batches are not
   * tracked).
   */
  void leaveBatch(Collection<String> keys) {
    if (!trackBatches || keys.isEmpty()) {
      return;
    }
    lock.lock();
    try {
      for (String key : keys) {
        inBatch.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
      }
      if (awaitingBatches > 0) {
        batchLeft.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Call only with the lock held. With {@link #trackBatches()}, counts {@code key} in a batch. */
  private void countInBatch(String key) {
    if (trackBatches) {
      inBatch.merge(key, 1, Integer::sum);
    }
  }

  /**
   * Call only with the lock held. Waits, at most {@link #BATCH_WAIT_NANOS}, until no batch being
   * written holds one of these keys.
   */
  private void awaitBatchesOf(Collection<String> keys) {
    long left = BATCH_WAIT_NANOS;
    awaitingBatches++;
    try {
      while (left > 0 && keys.stream().anyMatch(inBatch::containsKey)) {
        left = batchLeft.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the change goes on; the caller sees the flag
    } finally {
      awaitingBatches--;
    }
  }

  /**
   * Call only with the lock held. Adds {@code delta} to the count of changes in flight of each
   * tracked entry, never below 0.
   */
  private void countChangesLocked(Collection<String> keys, int delta) {
    for (String key : keys) {
      Entry e = tracked.get(key);
      if (e != null) {
        e.changesInFlight = Math.max(0, e.changesInFlight + delta);
      }
    }
  }

  /**
   * The start of a run of the job that started here (single-instance mode) and whose write-back has
   * not landed in {@code read}, a row of the job read after that start; else null. A change that
   * leaves the job {@code SCHEDULED} must then write it {@code RUNNING}, and one that pauses it
   * must write this start as the job's last start, so that the run's start mark outlives the change
   * (a crash during the run is then recovered with the flag). The write-back is told by the run
   * count, which every write-back increments.
   */
  Instant goingRunStart(String key, JobRecord read) {
    lock.lock();
    try {
      Entry e = tracked.get(key);
      return e != null
              && e.running
              && e.started
              && read.stats().runCount() == e.record.stats().runCount()
          ? e.startedAt
          : null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The start-mark batch of the running entry {@code e} (single-instance mode, a store that batches
   * runs): the batch that already covers it at its version, or a new one holding it and up to
   * {@code limit - 1} queued entries that are due now, {@code SCHEDULED} and {@code runnable}
   * (their handler is registered), the next to run first. The caller writes a new batch ({@link
   * MarkBatch#claimWrite}); a worker that takes a covered entry waits for that write instead of
   * marking it again. A covered entry that does not run (closed first; a change) keeps its mark;
   * see {@link #markedNotRun} and the store's version check.
   */
  MarkBatch markBatch(
      Entry e, int limit, long horizonNanos, java.util.function.Predicate<JobRecord> runnable) {
    lock.lock();
    try {
      long version = e.record.version();
      if (e.mark != null && e.markedVersion == version) {
        return e.mark;
      }
      List<Entry> entries = new ArrayList<>(List.of(e));
      fill(entries, limit, horizonNanos, runnable);
      return cover(entries, new MarkBatch(Thread.currentThread()));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Mark-ahead: if fewer than {@code low} queued entries that are due now are covered by a mark
   * (written or being written), a new batch of up to {@code limit} due entries not yet covered, for
   * another thread to write while the workers run the covered ones; else null. Workers that take
   * its entries wait for that write ({@link MarkBatch#await}).
   */
  MarkBatch markAhead(
      int limit, int low, long horizonNanos, java.util.function.Predicate<JobRecord> runnable) {
    lock.lock();
    try {
      List<Entry> entries = new ArrayList<>();
      int covered = fill(entries, limit, horizonNanos, runnable);
      return covered >= low || entries.isEmpty() ? null : cover(entries, new MarkBatch(null));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Call only with the lock held. Adds to {@code out} due {@code SCHEDULED} runnable entries not
   * yet covered at their version and without a concurrency limit (such a fire may wait for a
   * permit: it is marked, or claimed, alone when taken), not being changed and not {@link
   * #holdForCaller held} by a caller's open transaction (the change's row lock would hold up the
   * whole batch), in fire order (best-first from the heap's head, stopping at the first entry not
   * yet due), until it holds {@code limit} or {@code 4 * limit} entries were looked at; returns how
   * many due entries it passed that were covered already.
   */
  private int fill(
      List<Entry> out,
      int limit,
      long horizonNanos,
      java.util.function.Predicate<JobRecord> runnable) {
    long now = Entry.nanos(time.now());
    long until = now > Long.MAX_VALUE - horizonNanos ? Long.MAX_VALUE : now + horizonNanos;
    // Best-first over the heap's tree: the queued entries in fire order, next to run first.
    java.util.PriorityQueue<Entry> frontier =
        new java.util.PriorityQueue<>((a, b) -> a.before(b) ? -1 : b.before(a) ? 1 : 0);
    int covered = 0;
    int visited = 0;
    if (heap.size() > 0) {
      frontier.add(heap.at(0));
    }
    while (!frontier.isEmpty() && out.size() < limit && visited < 4 * limit) {
      Entry q = frontier.poll();
      if (q.due > until) {
        break; // the earliest left is beyond the horizon: so is everything after it
      }
      visited++;
      if (q.mark != null && q.markedVersion == q.record.version()) {
        covered++;
      } else if (q.record.state() == JobState.SCHEDULED
          && runnable.test(q.record)
          && permitsFor(q.record) == null // a limited fire may wait: marked when it is taken
          && q.changesInFlight == 0 // its row may be locked by the change's transaction
          && (heldForCaller.isEmpty() || !heldForCaller.containsKey(q.key))) {
        out.add(q);
      }
      for (int c = 2 * q.heapIndex + 1; c <= 2 * q.heapIndex + 2; c++) {
        if (c < heap.size()) {
          frontier.add(heap.at(c));
        }
      }
    }
    return covered;
  }

  /**
   * Cluster mode: takes up to {@code limit} queued entries that are due now (for another instance's
   * share: its grace has passed too), {@code SCHEDULED}, not recoveries, not retrying a lost claim
   * (claimed alone: see {@code FireRunner#claimWithOthers}) and {@code runnable}, the next to run
   * first; each is then running, owned by the caller, who claims them together with its own and
   * passes them on through {@link #handOut} (or {@link #finish}es them). With {@link
   * #trackBatches()} the taken entries and {@code own}, the caller's, count as in a batch until it
   * calls {@link #leaveBatch} with their keys after its claim; none are taken while a caller's
   * transaction holds {@code own}'s key (it is then claimed alone).
   */
  List<Entry> takeDue(int limit, java.util.function.Predicate<JobRecord> runnable, Entry own) {
    lock.lock();
    try {
      List<Entry> out = new ArrayList<>();
      if (shutdown || (anyHeldForCaller && heldForCaller.containsKey(own.key))) {
        return out;
      }
      fill(
          out,
          limit,
          0,
          r -> {
            Entry q = java.util.Objects.requireNonNull(tracked.get(r.key()));
            return runnable.test(r) && !q.recovery && q.retriedClaim == null;
          });
      for (Entry q : out) {
        heap.remove(q);
        start(q);
        countInBatch(q.key);
      }
      if (!out.isEmpty()) {
        countInBatch(own.key);
        deadlineChanged(); // the head may have moved
      }
      return out;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cluster mode: queues running entries, each with its claim's answer in {@link Entry#ready}, for
   * the next free workers: wakes as many followers, and the leader (it would otherwise wait out its
   * timer with work at hand).
   */
  void handOut(List<Entry> entries) {
    if (entries.isEmpty()) {
      return;
    }
    lock.lock();
    try {
      ready.addAll(entries);
      for (int i = 0; i < entries.size(); i++) {
        available.signal();
      }
      leaderWake.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Close: removes and returns the entries still in the ready queue (no worker took them). */
  List<Entry> drainReady() {
    lock.lock();
    try {
      List<Entry> out = new ArrayList<>(ready);
      ready.clear();
      return out;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Call only with the lock held. Covers each entry with {@code b}; returns {@code b}. With {@link
   * #trackBatches()} its keys count as in a batch until its writer calls {@link #leaveBatch}.
   */
  private MarkBatch cover(List<Entry> entries, MarkBatch b) {
    for (Entry q : entries) {
      q.mark = b;
      q.markedVersion = q.record.version();
      b.marks.add(new dev.kairos.spi.StartMark(q.key, q.markedVersion));
      countInBatch(q.key);
    }
    return b;
  }

  /**
   * Entries whose start mark was written at their current version but that have not run: queued
   * ones, and ones a worker took but finished unrun because the scheduler closed first (for close:
   * the store clears those marks, so a clean stop leaves no false recovery).
   */
  List<dev.kairos.spi.StartMark> markedNotRun() {
    lock.lock();
    try {
      List<dev.kairos.spi.StartMark> out = new ArrayList<>();
      for (Entry q : tracked.values()) {
        if (!q.running
            && q.mark != null
            && q.markedVersion == q.record.version()
            && q.mark.written()) {
          out.add(new dev.kairos.spi.StartMark(q.key, q.markedVersion));
        }
      }
      for (UnrunMark u : unrunMarks) {
        if (u.batch().written()) {
          out.add(u.mark());
        }
      }
      return out;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cluster mode: {@link #finish} queues the running entry no earlier than {@code t} (its claim
   * lost because the fire was not yet due by the store's clock).
   */
  void notBefore(Entry e, Instant t) {
    lock.lock();
    try {
      e.notBefore = Entry.nanos(t);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cluster mode: true the first time a claim of {@code r} (by version and due time) is lost with
   * the job unchanged and due by the store's clock, so that the worker retries it once; false on a
   * repeat, when another instance must hold a live lease on it.
   */
  boolean retryClaimOnce(Entry e, JobRecord r) {
    lock.lock();
    try {
      JobRecord before = e.retriedClaim;
      if (before != null
          && before.version() == r.version()
          && java.util.Objects.equals(before.dueTime(), r.dueTime())) {
        e.retriedClaim = null;
        return false;
      }
      e.retriedClaim = r;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cluster mode: after a lost claim of {@code taken}, the newest record the change feed delivered
   * since the entry was taken if it is newer than {@code taken} (the winner's claim or write-back),
   * else null: then only the store can tell why the claim was lost.
   */
  JobRecord seenElsewhere(Entry e, JobRecord taken) {
    lock.lock();
    try {
      JobRecord seen = e.seenElsewhere;
      return seen != null && seen.version() > taken.version() ? seen : null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cluster mode: records the fire of the claim the worker won on a running entry, and when ({@link
   * System#nanoTime()}) that claim was sent to the store.
   */
  void claimed(Entry e, java.time.Instant fire, long issuedNanos) {
    lock.lock();
    try {
      e.retriedClaim = null;
      if (!fire.equals(e.claimedFire)) { // a batch's claim is noted again when its run starts
        e.claimedAtNanos = issuedNanos;
      }
      e.claimedFire = fire;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cluster mode: nanoseconds ({@link System#nanoTime()}) since the running entry's claim was won,
   * which counts the time the process was stopped (a SIGSTOP, a long pause) too.
   */
  long claimAgeNanos(Entry e) {
    lock.lock();
    try {
      return System.nanoTime() - e.claimedAtNanos;
    } finally {
      lock.unlock();
    }
  }

  /** Cluster mode: the claims won and running here, job key to claimed fire (for renewal). */
  Map<String, Instant> heldClaims() {
    lock.lock();
    try {
      Map<String, Instant> held = new HashMap<>();
      for (Entry e : tracked.values()) {
        if (e.running && e.claimedFire != null) {
          held.put(e.key, e.claimedFire);
        }
      }
      return held;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Finishes the entry as {@link #finish} does, unless a trigger was requested while it ran: then
   * returns false and leaves it running, for the worker to take the request ({@link
   * #takeTriggerRequest}, under the scheduler's change lock) and finish it after. Once this has
   * finished the entry, later triggers go to the store (the worker no longer looks).
   *
   * @param stored the job as the write-back left it, or null if it is gone
   * @return true if the entry was finished
   */
  boolean finishUnlessTriggered(Entry e, JobRecord stored) {
    lock.lock();
    try {
      if (e.triggerRequested) {
        return false;
      }
      finish(e, stored); // reentrant: one acquisition where a look and a finish took two
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes (and clears) a trigger requested while the entry ran. From then until {@link #finish}, a
   * {@code triggerNow} goes to the store instead, so none is lost between this look and the finish.
   */
  boolean takeTriggerRequest(Entry e) {
    lock.lock();
    try {
      boolean t = e.triggerRequested;
      e.triggerRequested = false;
      e.triggerTaken = true;
      return t;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops a trigger requested during the job's run ({@code pause} wins over an earlier trigger).
   */
  void cancelTriggerRequest(String key) {
    lock.lock();
    try {
      Entry e = tracked.get(key);
      if (e != null) {
        e.triggerRequested = false;
      }
    } finally {
      lock.unlock();
    }
  }

  /** Cluster mode: a new share of the fires; applies to entries queued from now on. */
  void share(ClusterShare s) {
    lock.lock();
    try {
      share = s;
    } finally {
      lock.unlock();
    }
  }

  /** Call only with the lock held. Queues e from r with a fresh sequence number. */
  private void enqueue(Entry e, JobRecord r) {
    enqueue(e, r, share.delayNanos(e.key));
  }

  /**
   * Call only with the lock held. Queues e from r, {@code delay} nanoseconds after its due time.
   */
  private void enqueue(Entry e, JobRecord r, long delay) {
    e.record = r;
    long due = Entry.nanos(r.dueTime());
    e.due = due > Long.MAX_VALUE - delay ? Long.MAX_VALUE : due + delay;
    e.seq = seq++;
    heap.add(e);
    if (heap.peek() == e) {
      deadlineChanged();
    }
  }

  /**
   * Call only with the lock held. The earliest deadline moved: wake the leader to re-read it, or,
   * if there is none, one follower to become leader. Never a second timed waiter.
   */
  private void deadlineChanged() {
    if (leader != null) {
      leaderWake.signal();
    } else {
      available.signal();
    }
  }

  /**
   * If the job is running, asks its worker to fire it once more after the write-back.
   *
   * @return true if the job was running and the request was recorded
   */
  boolean triggerIfRunning(String key) {
    lock.lock();
    try {
      Entry e = tracked.get(key);
      if (e != null && e.running && !e.triggerTaken) {
        e.triggerRequested = true;
        log.trace("job '{}': trigger requested during its run", key);
        return true;
      }
      return false; // not running, or its worker no longer looks: the store takes the trigger
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@code key}'s entry was {@link #finish finished} with no record after an unexpected engine
   * failure, and the caller has listed the key among those the next load reads again: forgets the
   * version its run saw (reading the row again queues the job, at whatever version the store holds)
   * and has the next load begin no later than {@code at}.
   */
  void readAgainBy(String key, Instant at) {
    lock.lock();
    try {
      if (!tracked.containsKey(key)) {
        finishedVersions.remove(key);
      }
      long t = Entry.nanos(at);
      if (t < rereadAt) {
        rereadAt = t;
        deadlineChanged();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The caller is about to read its unsettled keys again: clears {@link #rereadAt}. A key listed
   * after this sets it again, so none waits for the next periodic load.
   */
  void rereadTaken() {
    if (rereadAt == Long.MAX_VALUE) {
      return; // the common case: no lock (written under it; volatile for this look)
    }
    lock.lock();
    try {
      rereadAt = Long.MAX_VALUE;
    } finally {
      lock.unlock();
    }
  }

  /** The time source moved (manual clocks): the leader's deadline may have passed. */
  void wake() {
    lock.lock();
    try {
      deadlineChanged();
    } finally {
      lock.unlock();
    }
  }

  /** Hands out no more entries; wakes every waiting worker so it can exit. */
  void shutdown() {
    lock.lock();
    try {
      shutdown = true;
      available.signalAll();
      leaderWake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Keys of running entries (for close's report). */
  List<String> runningKeys() {
    lock.lock();
    try {
      return tracked.values().stream().filter(e -> e.running).map(e -> e.key).sorted().toList();
    } finally {
      lock.unlock();
    }
  }

  /** Number of running entries. */
  int running() {
    lock.lock();
    try {
      return (int) tracked.values().stream().filter(e -> e.running).count() + lanesRunning;
    } finally {
      lock.unlock();
    }
  }

  /** Number of queued entries (those waiting for a concurrency limit's permit included). */
  int queued() {
    lock.lock();
    try {
      return queuedLocked();
    } finally {
      lock.unlock();
    }
  }

  /** Most workers ever seen waiting timed at once (1 when the protocol holds). */
  int maxTimedWaiters() {
    lock.lock();
    try {
      return maxTimedWaiters;
    } finally {
      lock.unlock();
    }
  }
}
