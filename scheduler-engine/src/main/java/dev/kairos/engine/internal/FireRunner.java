package dev.kairos.engine.internal;

import dev.kairos.Job;
import dev.kairos.JobState;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.Schedule;
import dev.kairos.UnreadableJobException;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.ScheduleState;
import dev.kairos.spi.StartMark;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one taken entry: applies the misfire rule, runs the job, computes the next fire, writes it
 * back to the store and only then hands the entry back to the dispatcher for re-queueing.
 *
 * <p>Never throws: a failing job is recorded; a failing store is retried with backoff (logged once
 * per outage) so no worker dies and no fire is dropped.
 */
final class FireRunner {
  private static final Logger log = LoggerFactory.getLogger(FireRunner.class);
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);

  /** Longest wait between retries of a failing store (a recovery also wakes waiters at once). */
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

  private final EngineConfig config;
  private final Dispatcher dispatcher;
  private final Listeners listeners;
  private final BooleanSupplier closing;
  private final StoreHealth health;
  private final Set<String> warnedHandlers = ConcurrentHashMap.newKeySet();

  /** Keeps this instance's backfill runs of a job apart from its regular runs. */
  final RunGate gate = new RunGate();

  /** Interrupts runs of replace-policy jobs when their next fire comes due; stopped at close. */
  final RunReplacer replacer;

  /** The calendars jobs' timetables are read through; the scheduler keeps them current. */
  final Calendars calendars = new Calendars();

  /**
   * The scheduler's lock of schedule changes: a trigger requested during a run is applied under it,
   * so that it and a {@code pause()} (which cancels pending triggers under the same lock) happen
   * one after the other: a pause that returned is never followed by a trigger it did not see.
   */
  private final java.util.concurrent.locks.Lock changes;

  /** The store in cluster mode, or null: then fires are not claimed. */
  private final ClusterStore cluster;

  FireRunner(
      EngineConfig config,
      Dispatcher dispatcher,
      Listeners listeners,
      BooleanSupplier closing,
      StoreHealth health,
      java.util.concurrent.locks.Lock changes) {
    this.changes = changes;
    this.config = config;
    this.dispatcher = dispatcher;
    this.listeners = listeners;
    this.closing = closing;
    this.health = health;
    this.cluster = config.store() instanceof ClusterStore cs && cs.clustered() ? cs : null;
    this.replacer = new RunReplacer(config.time(), config.instanceId());
  }

  /**
   * Runs the entry's due fire (or applies its misfire policy) and re-queues it; with a write-back
   * queue, the queue re-queues it once the run's write-back has committed.
   */
  void fire(Entry e) {
    Finish left = fireLeavingFinish(e);
    if (left != null) {
      afterRun(left.entry(), left.stored());
    }
  }

  /**
   * As {@link #fire}, but when the entry is this worker's to finish, returns it instead of
   * finishing it, for the worker to finish in the same acquisition of the dispatcher's lock as its
   * next take ({@link Dispatcher#finishAndTake}); null when the entry was finished here or handed
   * to the write-back queue.
   */
  Finish fireLeavingFinish(Entry e) {
    Handoff handoff = new Handoff();
    JobRecord stored;
    try {
      ReadyRun ready = e.ready;
      e.ready = null;
      stored = ready == null ? process(e, e.record, handoff) : runReady(e, ready, handoff);
    } catch (RuntimeException ex) {
      drop(e, ex);
      return null;
    } catch (Error err) {
      dispatcher.finish(e, null);
      throw err;
    }
    return handoff.queued ? null : new Finish(e, stored);
  }

  /**
   * A run's entry left for its worker to finish.
   *
   * @param entry the running entry
   * @param stored the job as the write-back left it, or null if it is gone
   */
  record Finish(Entry entry, JobRecord stored) {}

  /**
   * Finishes an entry that {@link Dispatcher#finishAndTake} left running because a trigger was
   * requested during its run: applies the trigger, then finishes it.
   */
  void finishTriggered(Finish left) {
    afterRun(left.entry(), left.stored());
  }

  /**
   * Set by the worker when it queued the run's write-back: from then on the write-back queue
   * finishes the entry (which may already be running again on another worker), not this worker.
   */
  private static final class Handoff {
    boolean queued;
  }

  /** Applies a trigger requested during the run, then hands the entry back to the dispatcher. */
  private void afterRun(Entry e, JobRecord stored) {
    if (dispatcher.finishUnlessTriggered(e, stored)) {
      return; // the common case: one acquisition of the dispatcher's lock
    }
    JobRecord last = stored;
    try {
      changes.lock();
      try {
        if (dispatcher.takeTriggerRequest(e)) { // unless a pause cancelled it meanwhile
          last = stored != null ? applyTrigger(stored) : triggerInStore(e.key);
        }
      } finally {
        changes.unlock();
      }
    } catch (RuntimeException ex) {
      if (ex instanceof UnreadableJobException) {
        log.error("job '{}': its stored row cannot be read; left in the store", e.key, ex);
      } else {
        log.error(
            "job '{}': unexpected engine failure applying the trigger requested during its run;"
                + " that trigger is lost, the job keeps its schedule",
            e.key,
            Failures.loggable(ex));
      }
    } finally {
      dispatcher.finish(e, last);
    }
  }

  /**
   * Asked with a job's key when an unexpected engine failure dropped it from memory; answers when
   * its row will be read again (null: never, the scheduler is closing).
   */
  private volatile java.util.function.Function<String, Instant> onDropped = key -> null;

  /**
   * Sets who reads a job again after an unexpected engine failure dropped it (see {@link #drop}).
   */
  void onDropped(java.util.function.Function<String, Instant> readAgain) {
    this.onDropped = readAgain;
  }

  /**
   * Finishes {@code e} with no record after {@code ex}, which the engine did not expect while it
   * fired, decided or wrote back the job: the job leaves memory. A row that cannot be read stays
   * out (it is refused, listed by {@code unreadable()}); for any other failure the row is read
   * again from the store after a back-off, and the job goes on from what the store holds: after a
   * run whose start was marked and whose write-back was lost, the next fire is a recovery, as after
   * a crash.
   */
  private void drop(Entry e, RuntimeException ex) {
    dispatcher.finish(e, null);
    if (ex instanceof UnreadableJobException) {
      log.error(
          "job '{}': its stored row cannot be read; dropped from memory, left in the store",
          e.key,
          ex);
      return;
    }
    Instant again;
    try {
      again = onDropped.apply(e.key);
    } catch (RuntimeException readAgainFailed) { // the time source itself, say
      ex.addSuppressed(readAgainFailed);
      again = null; // read again at the next change or start, as before
    }
    log.error(
        "job '{}': unexpected engine failure; the job is dropped from memory{}",
        e.key,
        again == null
            ? " until it is changed or the scheduler starts again"
            : " and read again from the store at " + again,
        Failures.loggable(ex));
  }

  // ---- the write-back queue and batched start marks (stores that batch runs) -----------------

  /** Most start marks written in one batch. */
  static final int MARK_BATCH = 64;

  /** Mark ahead when fewer due entries than this are covered by marks. */
  static final int MARK_AHEAD_LOW = 32;

  /**
   * Entries due up to this long from now count as due for start marks: so that at a steady rate of
   * fires a batch of marks is written ahead of them, and a fire rarely waits for its own mark.
   */
  static final long MARK_HORIZON_NANOS = 50_000_000L;

  /**
   * Longest a write-back waits for others to share its transaction (see {@link WriteBackQueue}), in
   * single-instance mode: 1,000 jobs a second spread evenly ({@code lateness}, A/B in one sitting)
   * cost about a quarter to a third less CPU per fire with it (H2 file 0.78-1.1 ms → 0.45-0.8,
   * PostgreSQL 0.34 → 0.22, MariaDB 0.41 → 0.27), and H2's lateness p99 fell from 10.6-11.4 to
   * 7.1-7.6 ms. Not in cluster mode, where 10,000 due one-shots ran 7-22% slower with it (a claim's
   * lease is held until its write-back). Start marks never linger: a run waits for its mark.
   */
  static final long WRITE_BACK_LINGER_NANOS = 3_000_000L;

  /**
   * Whether a queued write-back may wait for the linger: not if its job is due again within twice
   * the linger (by the engine's clock), since the job re-enters the heap only after its write-back
   * commits.
   */
  private boolean mayLinger(Queued q) {
    Instant due = q.result().next().dueTime();
    return due == null || due.isAfter(config.time().now().plusNanos(2 * WRITE_BACK_LINGER_NANOS));
  }

  /**
   * A {@code triggerNow()} arrived while a job ran here: its write-back (queued, or about to be) is
   * written without lingering, so the triggered fire is not held back by the linger.
   */
  void hurryWriteBacks() {
    WriteBackQueue<Queued> q = writeBacks;
    if (q != null) {
      q.hurry();
    }
  }

  /** Writes mark-ahead batches (see {@link #writeMarks}); started with the write-back queue. */
  private final WriteBackQueue<MarkBatch> markWriter = new WriteBackQueue<>(this::writeMarks);

  /** A run whose write-back is queued, with what its completion needs. */
  private record Queued(
      Entry entry, RunResult result, RunContext ctx, long begin, int failures, boolean warned) {
    Queued(Entry entry, RunResult result, RunContext ctx, long begin) {
      this(entry, result, ctx, begin, 0, false);
    }
  }

  /**
   * The write-back queue, or null: runs are then written back by their worker. Set before the
   * workers start (see {@link #startWriteBackQueue}); read by workers only after.
   */
  private volatile WriteBackQueue<Queued> writeBacks;

  /**
   * Starts the write-back queue with {@code threads} writers if the store batches runs, and in
   * single-instance mode the mark-ahead writer (cluster mode marks a run by its claim); call before
   * the workers start. Without it (the step API, a store that does not batch runs, such as the
   * in-memory one) each worker writes its own run back and marks its own start.
   */
  void startWriteBackQueue(int threads) {
    if (config.store().batchesRuns()) {
      WriteBackQueue<Queued> q =
          new WriteBackQueue<>(
              this::writeBatch,
              cluster == null ? WRITE_BACK_LINGER_NANOS : 0,
              this::mayLinger,
              this::writeAlone, // a retry that is due: alone
              item -> completeWriteBack(item, Optional.empty()));
      q.start(threads, config.instanceId());
      if (cluster == null) {
        markWriter.start(1, config.instanceId() + "-marks");
      }
      writeBacks = q;
    }
  }

  /**
   * Whether the calling thread is a writer thread of the write-back queue (where {@code
   * runWrittenBack} listeners run), which the close waits for.
   */
  boolean onWriterThread() {
    WriteBackQueue<Queued> q = writeBacks;
    return q != null && q.onWriterThread();
  }

  /**
   * Close: waits until the queued write-backs are written (their retries give up after the grace
   * period, as a worker's do), then clears the start marks of entries that were marked in a batch
   * but never ran, so a clean stop leaves no false recovery. Returns false if some were left.
   */
  boolean stopWriteBackQueue(long deadlineNanos) {
    WriteBackQueue<Queued> q = writeBacks;
    if (q == null) {
      return true;
    }
    boolean drained = q.drain(deadlineNanos);
    q.join(Math.max(1, deadlineNanos - System.nanoTime()));
    markWriter.drain(deadlineNanos); // its batches complete, written or not: no worker waits
    markWriter.join(Math.max(1, deadlineNanos - System.nanoTime()));
    if (cluster != null) {
      releaseReady();
    }
    List<StartMark> unrun = dispatcher.markedNotRun();
    if (!unrun.isEmpty()) {
      try {
        config.store().runsNotStarted(unrun);
      } catch (RuntimeException ex) {
        log.warn(
            "clearing the start marks of {} job(s) that did not run failed; at the next start"
                + " they run as recoveries",
            unrun.size(),
            ex);
      }
    }
    return drained;
  }

  /**
   * Close: releases the claims won for entries still in the dispatcher's ready queue (no worker was
   * left to take them), so that their fires run at once elsewhere rather than after their lease as
   * recoveries; a release that fails leaves exactly that.
   */
  private void releaseReady() {
    for (Entry e : dispatcher.drainReady()) {
      ReadyRun ready = e.ready;
      e.ready = null;
      if (ready != null && ready.claim().isPresent()) {
        Instant fire = ready.claim().get().record().dueTime();
        try {
          cluster.release(e.key, config.instanceId(), fire);
        } catch (RuntimeException ex) {
          log.warn(
              "job '{}': releasing its unrun claim at close failed; its fire runs as a recovery"
                  + " after the lease",
              e.key,
              ex);
        }
      }
      dispatcher.finish(e, null);
    }
  }

  /**
   * A writer thread: one batch in one store call, then each write-back's continuation. A batch the
   * store refuses is written run by run, so that one run the store refuses again and again (a row
   * it cannot hold) does not hold up the others; a run that fails alone waits for a retry of its
   * own ({@link #writeLater}) and the writer goes on. Two runs failing alone before any lands look
   * like an outage: the rest of the batch then waits for its retries untried.
   */
  private void writeBatch(List<Queued> batch) {
    Set<String> held =
        dispatcher.anyHeldForCaller() || dispatcher.tracksBatches()
            ? dispatcher.enterBatch(keys(batch))
            : Set.of();
    if (!held.isEmpty()) {
      batch = setAsideHeld(batch, held);
      if (batch.isEmpty()) {
        return;
      }
    }
    List<Optional<JobRecord>> stored;
    try {
      try {
        stored = config.store().runsFinished(batch.stream().map(Queued::result).toList());
      } finally {
        if (dispatcher.tracksBatches()) {
          dispatcher.leaveBatch(keys(batch)); // before any retry alone, which counts its own
        }
      }
      if (stored == null || stored.size() != batch.size()) {
        throw new IllegalStateException(
            "the store answered a batch of " + batch.size() + " write-backs with " + stored);
      }
      health.ok();
    } catch (RuntimeException ex) {
      health.failed("writing back " + batch.size() + " run(s)", ex);
      if (batch.size() == 1) {
        writeLater(batch.get(0), ex);
        return;
      }
      int failedAlone = 0;
      boolean landed = false;
      for (Queued q : batch) {
        if (!landed && failedAlone >= 2) {
          writeLater(q, ex);
        } else if (writeAlone(q)) {
          landed = true;
        } else {
          failedAlone++;
        }
      }
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      completeWriteBack(
          batch.get(i), Optional.of(Objects.requireNonNullElse(stored.get(i), Optional.empty())));
    }
  }

  /** How often a write-back set aside for a caller's open transaction looks again (10 ms). */
  static final long HELD_RECHECK_NANOS = 10_000_000L;

  private static List<String> keys(List<Queued> batch) {
    List<String> keys = new ArrayList<>(batch.size());
    for (Queued q : batch) {
      keys.add(q.result().key());
    }
    return keys;
  }

  /**
   * Returns the batch without the write-backs of the {@code held} jobs, whose rows a caller's open
   * transaction holds ({@link Dispatcher#enterBatch}): each of those waits, without a store call,
   * until that transaction has ended, and is then written alone; writing it in the batch would hold
   * every other write-back of the batch until then.
   */
  private List<Queued> setAsideHeld(List<Queued> batch, Set<String> held) {
    List<Queued> rest = new ArrayList<>(batch.size());
    for (Queued q : batch) {
      if (held.contains(q.result().key())) {
        waitForCaller(q);
      } else {
        rest.add(q);
      }
    }
    return rest;
  }

  private void waitForCaller(Queued q) {
    if (!writeBacks.retryLater(q, HELD_RECHECK_NANOS)) {
      completeWriteBack(q, Optional.empty()); // the queue stopped: abandoned at shutdown
    }
  }

  /** Write-backs put back for a retry of their own and not written or given up yet. */
  private final java.util.concurrent.atomic.AtomicInteger writeBacksWaiting =
      new java.util.concurrent.atomic.AtomicInteger();

  /** Write-backs waiting for a retry of their own ({@link dev.kairos.SchedulerStats}). */
  int writeBacksWaiting() {
    return writeBacksWaiting.get();
  }

  /**
   * Writes one run back and completes it; on failure puts it back for a retry. True if written (or
   * ended: its row cannot be read).
   */
  private boolean writeAlone(Queued q) {
    List<String> key = List.of(q.result().key());
    if (!dispatcher.enterBatch(key).isEmpty()) {
      waitForCaller(q); // see setAsideHeld
      return false;
    }
    Optional<JobRecord> stored;
    try {
      try {
        stored =
            Objects.requireNonNullElse(config.store().runFinished(q.result()), Optional.empty());
      } finally {
        dispatcher.leaveBatch(key);
      }
      health.ok();
    } catch (UnreadableJobException ex) {
      if (q.failures() > 0) {
        writeBacksWaiting.decrementAndGet();
      }
      drop(q.entry(), ex); // permanent: retrying cannot help
      return true;
    } catch (RuntimeException ex) {
      writeLater(q, ex);
      return false;
    }
    completeWriteBack(q, Optional.of(stored));
    return true;
  }

  /**
   * A write-back failed: it is retried alone after a backoff (100 ms, doubling to 1 s), its job out
   * of the heap meanwhile, as it would be behind a retrying worker. Logged at WARN the first time
   * it fails while the store is not down (the store answers others but refuses this run), else at
   * DEBUG: an outage is logged once by {@link StoreHealth}.
   */
  private void writeLater(Queued q, RuntimeException failure) {
    if (q.failures() == 0) {
      writeBacksWaiting.incrementAndGet();
    }
    boolean warn = !q.warned() && !health.isDown();
    if (warn) {
      log.warn(
          "job '{}': the store refuses the write-back of fire {} while it takes others; retrying"
              + " it alone with backoff, and the job does not fire again until it is written",
          q.result().key(),
          q.result().scheduledFireTime(),
          failure);
    } else {
      log.debug(
          "job '{}': write-back of fire {} failed again: {}",
          q.result().key(),
          q.result().scheduledFireTime(),
          failure.toString());
    }
    int failures = q.failures() + 1;
    Queued again =
        new Queued(q.entry(), q.result(), q.ctx(), q.begin(), failures, q.warned() || warn);
    long delay = FIRST_BACKOFF.toNanos() << Math.min(failures - 1, 20);
    if (!writeBacks.retryLater(again, Math.min(delay, MAX_BACKOFF.toNanos()))) {
      completeWriteBack(again, Optional.empty()); // the queue stopped: abandoned at shutdown
    }
  }

  /** Runs a write-back's continuation: empty {@code answer} means abandoned at shutdown. */
  private void completeWriteBack(Queued q, Optional<Optional<JobRecord>> answer) {
    if (q.failures() > 0) {
      writeBacksWaiting.decrementAndGet();
    }
    try {
      afterRun(q.entry(), writtenBack(q.result(), q.ctx(), answer, q.begin()).orElse(null));
    } catch (RuntimeException ex) {
      drop(q.entry(), ex);
    }
  }

  /**
   * Marks the start of {@code e}'s run: in a batch with other due entries when there is a
   * write-back queue (waiting for the batch another worker writes if one covers it), else alone.
   * Either way the mark is durable, or has failed and been reported, before the run starts.
   */
  private void markStarted(Entry e, JobRecord r, Instant fire, Instant start) {
    if (writeBacks == null
        || r.state() == JobState.PAUSED
        || e.changesInFlight > 0
        || dispatcher.heldForCaller(e.key)) {
      // A paused job's run (a triggerNow()): its row stays PAUSED, so the mark is the start alone,
      // which only the key-based mark writes (see Dispatcher#recoverStartsNotEnded). A job being
      // changed, or whose row a caller's open transaction holds: alone too, so that only this run
      // waits for that transaction, not a batch of other jobs' marks.
      markAlone(r.key(), fire, start, true);
      return;
    }
    MarkBatch b = dispatcher.markBatch(e, MARK_BATCH, MARK_HORIZON_NANOS, this::runnable);
    boolean written = b.claimWrite() ? write(b) : b.await();
    if (!written) {
      markAlone(r.key(), fire, start, true); // as without a queue
    }
    MarkBatch ahead =
        dispatcher.markAhead(MARK_BATCH, MARK_AHEAD_LOW, MARK_HORIZON_NANOS, this::runnable);
    if (ahead != null) {
      markWriter.submit(ahead);
    }
  }

  /** Longest a starting run waits for a change of its job being written (see below). */
  private static final long CHANGE_WAIT_NANOS = 10_000_000_000L;

  /**
   * Single-instance mode, after the run's start mark and before its handler: if a change of the job
   * reached it since it was taken, or is being written, marks the run again, by key. A change
   * written between the take and the mark gives the row a new version, which the mark (made for the
   * version taken) then misses; without this the run would go unmarked and a crash during it would
   * re-run the fire without {@code ctx.recovery()}. Waits for a change being written to end first,
   * so that the new mark comes after it. The handler has not run: no write-back can come before
   * this mark. A paused row stays paused (the store marks only a {@code SCHEDULED} row).
   */
  private void markAgainAfterChange(Entry e, JobRecord r, Instant fire, Instant start) {
    if (e.changesInFlight == 0 && e.changedWhileRunning == null) {
      return; // the common case: two volatile reads
    }
    long deadline = System.nanoTime() + CHANGE_WAIT_NANOS;
    while (e.changesInFlight > 0 && deadline - System.nanoTime() > 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(100_000L);
    }
    if (!markAlone(r.key(), fire, start, false)) {
      // Made in a caller's open transaction, which keeps the row locked: this mark would wait for
      // its end. The change's own mark in that transaction, or the re-read at its end, marks the
      // run going here instead (KairosScheduler: markGoingRuns, markPausedRun).
      log.trace("job '{}': changed in an open transaction since taken; marked by it", r.key());
      return;
    }
    log.trace("job '{}': changed since taken; its run is marked again", r.key());
  }

  /**
   * Marks a run by key, alone, counted as a batch of its own while the store writes it ({@link
   * Dispatcher#enterBatch}): a change that may join a caller's transaction and begins meanwhile
   * waits for this mark before it locks the row ({@link Dispatcher#changing(java.util.Collection,
   * boolean)}), so the mark never waits for that transaction's lock. Such a wait would hold up more
   * than this run: a store may write the mark in one transaction with other jobs' write-backs (the
   * JDBC store's group commit), which then waited too. While a caller's open transaction holds the
   * job, this waits for that transaction's end without a store call ({@code waitForCaller}; as a
   * write-back does) and marks the run then, or, without {@code waitForCaller}, returns false and
   * writes nothing. Returns true if the mark was written (or has failed and been reported).
   */
  private boolean markAlone(String key, Instant fire, Instant start, boolean waitForCaller) {
    List<String> keys = List.of(key);
    while (!dispatcher.enterBatch(keys).isEmpty()) { // held: nothing counted
      if (!waitForCaller) {
        return false;
      }
      if (closing.getAsBoolean()) {
        markStarted(key, fire, start); // as before the hold: it may wait for the row lock
        return true;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(HELD_RECHECK_NANOS);
    }
    try {
      markStarted(key, fire, start);
    } finally {
      dispatcher.leaveBatch(keys);
    }
    return true;
  }

  /**
   * True if the job's handler is registered here and its runs are serialized: only such jobs are
   * marked ahead or claimed in another fire's batch (a job under {@code allow(n)} needs no start
   * mark, its start write records the run, and is claimed alone, when its worker knows it may
   * start).
   */
  private boolean runnable(JobRecord r) {
    return config.handlers().containsKey(r.spec().handler()) && concurrentRuns(r) <= 1;
  }

  /**
   * The mark-ahead writer: writes batches of marks for due entries while the workers run the ones
   * marked before, so that under a backlog a worker rarely waits for a mark.
   */
  private void writeMarks(List<MarkBatch> batches) {
    batches.forEach(this::write);
  }

  /**
   * Writes a batch of marks and completes it: true if written; a failure is reported, and each of
   * the batch's entries is then marked alone by its worker.
   */
  private boolean write(MarkBatch b) {
    boolean ok = false;
    try {
      config.store().runsStarted(b.marks);
      health.ok();
      ok = true;
    } catch (RuntimeException ex) {
      health.failed("marking the start of " + b.marks.size() + " run(s)", ex);
    } finally {
      if (dispatcher.tracksBatches()) {
        dispatcher.leaveBatch(b.marks.stream().map(dev.kairos.spi.StartMark::key).toList());
      }
      b.complete(ok);
    }
    return ok;
  }

  private JobRecord process(Entry e, JobRecord r, Handoff handoff) {
    Job job = config.handlers().get(r.spec().handler());
    if (job == null) {
      if (warnedHandlers.add(r.key())) {
        log.warn(
            "job '{}': handler '{}' is not registered here; left in the store, not fired",
            r.key(),
            r.spec().handler());
      }
      return null;
    }
    Decision d = decide(e, r);
    return d.fire() == null ? d.stored() : run(e, r, d.tt(), d.fire(), handoff, null);
  }

  /**
   * What the entry's due fire comes to: a fire to run, or (fire null) the record the misfire policy
   * left when it runs nothing now.
   */
  private record Decision(Timetable tt, Fire fire, JobRecord stored) {}

  private Decision decide(Entry e, JobRecord r) {
    Timetable tt = e.timetable(r.spec(), calendars);
    return switch (r.dueKind()) {
      case RETRY ->
          new Decision(tt, new Fire(r.lastScheduledFireTime(), r.attempt(), 0, r.dueKind()), null);
      case TRIGGER -> new Decision(tt, new Fire(r.dueTime(), 1, 0, r.dueKind()), null);
      case TIMETABLE -> timetableFire(e, r, tt);
    };
  }

  private Decision timetableFire(Entry e, JobRecord r, Timetable tt) {
    Instant now = config.time().now();
    Instant dueAt = Jitter.due(r.spec(), r.nextFireTime());
    MisfireRule.Decision d =
        MisfireRule.decide(
            tt, r.nextFireTime(), t -> Jitter.due(r.spec(), t), now, r.spec().misfire());
    if (d.dropped() > 0) {
      log.info(
          "job '{}': behind by {} (oldest missed fire {}); {} drops {} fire(s){}",
          r.key(),
          Duration.between(dueAt, now),
          r.nextFireTime(),
          r.spec().misfire(),
          d.dropped(),
          d.runs() ? ", runs " + d.fire() : "");
      listeners.firesDropped(r.key(), r.nextFireTime(), d.dropped(), r.spec().misfire());
    }
    if (!d.runs()) {
      Instant next = d.nextWhenNoRun().orElse(null);
      JobState state = next == null ? JobState.COMPLETE : JobState.SCHEDULED;
      Instant due = Jitter.due(r.spec(), next);
      JobRecord stored =
          replace(
              r,
              r.withSchedule(state, next, due, FireKind.TIMETABLE, 1),
              // only if this decision took effect (in cluster mode: no other instance's did)
              () -> {
                recordSkipped(
                    r.key(), tt, r.nextFireTime(), d.dropped(), r.spec().misfire().toString());
                calendarDrops(r, tt, r.nextFireTime(), next);
              });
      return new Decision(tt, null, stored);
    }
    return new Decision(tt, fire(d, r.nextFireTime(), r.spec().misfire()), null);
  }

  /**
   * The fire a misfire decision runs, with the fires it drops (not those it coalesces: the run's
   * missed fires count them).
   */
  private static Fire fire(MisfireRule.Decision d, Instant oldestMissed, Misfire policy) {
    boolean coalesces = policy instanceof Misfire.FireOnce;
    return new Fire(
        d.fire(),
        1,
        d.missedFires(),
        FireKind.TIMETABLE,
        coalesces ? 0 : d.dropped(),
        coalesces || d.dropped() == 0 ? null : oldestMissed);
  }

  /**
   * One fire to run: its scheduled time, attempt, missed fires it stands for, and why; and the
   * fires its misfire policy dropped to run it (recorded in the history when it starts).
   */
  record Fire(
      Instant scheduled,
      int attempt,
      int missedFires,
      FireKind kind,
      long dropped,
      Instant oldestDropped) {
    Fire(Instant scheduled, int attempt, int missedFires, FireKind kind) {
      this(scheduled, attempt, missedFires, kind, 0, null);
    }
  }

  /**
   * Appends a history entry for {@code count} fires from {@code oldest} that a policy dropped; a
   * store failure costs the entry only (logged), never the fire.
   */
  private void recordSkipped(String key, Timetable tt, Instant oldest, long count, Object policy) {
    if (count <= 0 || oldest == null) {
      return;
    }
    String by = policy.toString(); // only now: a Misfire's toString formats (measured per fire)
    recordSkipped(key, oldest, tt.nth(oldest, count - 1).orElse(oldest), count, by);
  }

  private void recordSkipped(String key, Instant oldest, Instant newest, long count, String by) {
    Instant now = config.time().now();
    RunRecord entry =
        new RunRecord(
            key,
            oldest,
            now,
            now,
            RunOutcome.SKIPPED,
            "skipped " + count + " fire(s) from " + oldest + " to " + newest + " by " + by,
            1,
            config.instanceId(),
            false,
            (int) Math.min(count, Integer.MAX_VALUE));
    try {
      config.store().recordSkipped(entry);
    } catch (RuntimeException ex) {
      log.warn("job '{}': the history entry '{}' could not be written", key, entry.error(), ex);
    }
  }

  /**
   * Reports and records the slots a SKIP calendar dropped as the job's next fire moves from {@code
   * from} to {@code to}: those between the fires of its timetable in that stretch (the fires
   * themselves ran, or a misfire or overlap policy accounts for them). Called where the move is
   * written (a run's write-back, a misfire decision that runs nothing), so each slot once.
   */
  private void calendarDrops(JobRecord r, Timetable tt, Instant from, Instant to) {
    if (!(tt instanceof CalendarTimetable c)) {
      return;
    }
    CalendarTimetable.Skipped s = c.skipped(from, to);
    if (s.count() == 0) {
      return;
    }
    String calendar = r.spec().calendar().orElse("");
    log.info(
        "job '{}': calendar '{}' excluded {} fire(s) from {} to {}; next allowed fire {}",
        r.key(),
        calendar,
        s.count(),
        s.oldest(),
        s.newest(),
        to);
    listeners.firesDropped(r.key(), s.oldest(), s.count(), r.spec().misfire());
    recordSkipped(r.key(), s.oldest(), s.newest(), s.count(), "calendar '" + calendar + "'");
  }

  /**
   * A fire of a job whose row a caller's open transaction holds ({@link Dispatcher#holdForCaller})
   * waits here, before its claim or start mark, until that transaction has ended: its change (a
   * pause, a new definition, a deletion) is then committed or rolled back, and the heap has read
   * the row again, so {@link Dispatcher#beginRun} sees a committed change and gives the run up.
   * Only a fire taken before its job's hold began comes here: a held fire that comes due later is
   * set aside by the dispatcher without a worker. Only this worker waits; written earlier, the mark
   * or claim would wait for the row lock itself.
   */
  private void awaitCallerTransaction(Entry e) {
    while (dispatcher.heldForCaller(e.key) && !closing.getAsBoolean()) {
      java.util.concurrent.locks.LockSupport.parkNanos(HELD_RECHECK_NANOS);
    }
  }

  /**
   * Runs a decided fire.
   *
   * @param preclaimed cluster mode: the answer of the claim made for it in another worker's batch,
   *     or null to claim it now
   */
  private JobRecord run(
      Entry e,
      JobRecord taken,
      Timetable tt,
      Fire fire,
      Handoff handoff,
      Optional<ClusterStore.Claimed> preclaimed) {
    awaitCallerTransaction(e);
    JobRecord r = taken;
    boolean recovery = e.recovery;
    Instant start;
    Instant localStart;
    int lanes = concurrentRuns(taken);
    if (lanes > 1) { // allow(n): its start write is the claim; see runConcurrently
      if (dispatcher.lanesFull(e, lanes, config.time().now().plus(LANE_POLL))) {
        log.debug(
            "job '{}': fire {} waits: {} runs of it are going here",
            taken.key(),
            fire.scheduled(),
            lanes);
        return taken; // re-queued; due again once one of its runs here ends
      }
      start = dispatcher.beginRun(e);
      if (start == null) {
        log.debug("job '{}': changed before its run; fire {} not run", r.key(), fire.scheduled());
        return null;
      }
      return runConcurrently(e, taken, tt, fire, recovery, start, handoff);
    }
    if (cluster != null) {
      Optional<ClusterStore.Claimed> claimed = preclaimed;
      long issued = System.nanoTime(); // before the claim: its lease starts later, never earlier
      if (claimed == null) {
        dev.kairos.ConcurrencyLimit limit = dispatcher.limitOf(taken).orElse(null);
        if (limit != null) { // claimed alone, against the limit's count in the store
          ClusterStore.LimitedClaim answer = claimWithin(taken, limit);
          if (answer.limitFull()) {
            return limitFull(e, taken, fire, limit);
          }
          claimed = answer.claimed();
        } else {
          claimed = claimWithOthers(e, taken);
        }
      }
      if (claimed.isEmpty()) {
        log.debug("job '{}': fire {} claimed by another instance", taken.key(), fire.scheduled());
        return afterLostClaim(e, taken, fire);
      }
      r = claimed.get().record();
      recovery = claimed.get().recovery();
      Instant claimedFire = r.dueTime();
      dispatcher.claimed(e, claimedFire, issued);
      localStart = dispatcher.beginRun(e);
      if (localStart == null) {
        log.debug("job '{}': changed after its claim; fire {} not run", r.key(), fire.scheduled());
        retrying(
            "releasing the claim of job '" + taken.key() + "'",
            () -> cluster.release(taken.key(), config.instanceId(), claimedFire));
        return null;
      }
      // The run starts with its claim, by the store's clock: a pause() that another instance
      // stores after the claim finds the job running, and the run's times stay on the one clock
      // that judges claims and leases (this instance's may be skewed).
      start = r.lastStart() != null ? r.lastStart() : localStart;
      fire = notAfter(r, tt, fire, start);
      if (!claimStillHeld(e, r.key(), claimedFire)) {
        return afterLostClaim(e, taken, fire);
      }
    } else {
      start = dispatcher.beginRun(e);
      localStart = start;
      if (start == null) {
        log.debug("job '{}': changed before its run; fire {} not run", r.key(), fire.scheduled());
        return null;
      }
      markStarted(e, r, fire.scheduled(), start);
      markAgainAfterChange(e, r, fire.scheduled(), start);
    }
    recordSkipped(r.key(), tt, fire.oldestDropped(), fire.dropped(), r.spec().misfire());
    RunContext ctx =
        new RunContext(
            r.key(),
            r.spec().handler(),
            r.spec().data(),
            fire.scheduled(),
            start,
            fire.attempt(),
            fire.missedFires(),
            recovery);
    log.debug(
        "job '{}': run of fire {} starts (attempt {}, version {}, recovery {})",
        r.key(),
        fire.scheduled(),
        fire.attempt(),
        r.version(),
        recovery);
    listeners.runStarted(ctx);
    Throwable failure = null;
    RunOutcome outcome = RunOutcome.SUCCESS;
    long handlerBegin = System.nanoTime();
    inHandler.incrementAndGet();
    RunReplacer.Watch watch = replaceWatch(r, tt, fire, localStart);
    boolean cut = false;
    boolean replaced = false;
    try {
      Job job = config.handlers().get(r.spec().handler());
      gate.regular(r.key(), () -> job.run(ctx)); // never beside a backfill run of the job
    } catch (InterruptedException ie) {
      failure = ie;
      outcome = closing.getAsBoolean() ? RunOutcome.INTERRUPTED : RunOutcome.FAILURE;
    } catch (Throwable t) { // a job's failure, whatever it is, must not kill the worker
      failure = t;
      outcome = RunOutcome.FAILURE;
    } finally {
      // Before the flag is read: once the watch has ended, no replace interrupt can come.
      cut = replacer.end(watch);
      if (cut && failure != null && outcome == RunOutcome.FAILURE) {
        replaced = true;
        outcome = RunOutcome.INTERRUPTED;
        failure = new ReplacedException(watch.replacedBy, failure);
      }
      inHandler.decrementAndGet();
      long took = System.nanoTime() - handlerBegin;
      runNanos += (took - runNanos) / 16; // racy on purpose: a rough recent average suffices
    }
    boolean interrupted =
        Thread.interrupted() // a store call must not see the flag (H2 closes files)
            && (!cut || closing.getAsBoolean()); // a replace interrupt ends here
    Duration ran = Duration.between(localStart, config.time().now());
    Instant end = start.plus(ran.isNegative() ? Duration.ZERO : ran); // a resampled clock steps
    RunResult result = result(r, tt, fire, ctx, end, outcome, failure, replaced);
    report(ctx, result, failure, Duration.between(start, end));
    WriteBackQueue<Queued> queue = writeBacks;
    if (queue != null) {
      handoff.queued = true; // from here on the queue owns the entry
      queue.submit(new Queued(e, result, ctx, System.nanoTime()));
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return null;
    }
    Optional<JobRecord> stored = writeBack(result, ctx);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return stored.orElse(null);
  }

  // ---- concurrent runs (Overlap.allow) ----------------------------------------------------------

  /** How often a fire waiting for a run of its job to end looks again, if nothing tells it. */
  static final Duration LANE_POLL = Duration.ofMillis(250);

  /**
   * The bound of concurrent runs of the job: n under {@code allow(n)} for a timetable that can
   * overlap (fixed rate, cron), else 1 (its runs are serialized).
   */
  static int concurrentRuns(JobRecord r) {
    if (r == null || !(r.spec().overlap() instanceof Overlap.Allow a)) {
      return 1;
    }
    Schedule s = r.spec().schedule();
    return s instanceof Schedule.FixedDelay || s instanceof Schedule.Once ? 1 : a.runs();
  }

  /**
   * Runs a fire of a job under {@code allow(n)}, n > 1, once decided: writes its start ({@link
   * dev.kairos.spi.JobStore#startConcurrentRun}: the job's schedule moves on and the run is
   * recorded, in one transaction that in cluster mode is also the fire's claim), hands the entry
   * back to the dispatcher at once, so that its next fire can start beside this run, then runs the
   * handler on this worker and writes only the run's end ({@link
   * dev.kairos.spi.JobStore#finishConcurrentRun}). The run keeps the entry's concurrency-limit
   * permit until it ends. A start refused by the store re-queues the fire (a later look, or as soon
   * as a run of the job here ends), or drops it if another instance started it or it changed.
   * Returns the record to re-queue the entry from, or null once the entry is finished here.
   */
  private JobRecord runConcurrently(
      Entry e,
      JobRecord r,
      Timetable tt,
      Fire fire,
      boolean recovery,
      Instant start,
      Handoff handoff) {
    int bound = concurrentRuns(r);
    Instant next =
        fire.kind() == FireKind.TRIGGER
            ? r.nextFireTime()
            : tt.successor(fire.scheduled()).orElse(null);
    dev.kairos.spi.ConcurrentRun.Next state =
        r.state() == JobState.PAUSED // a paused job's trigger: it stays paused, nothing armed
            ? new dev.kairos.spi.ConcurrentRun.Next(
                JobState.PAUSED, r.nextFireTime(), null, FireKind.TIMETABLE)
            : next == null
                ? new dev.kairos.spi.ConcurrentRun.Next(
                    JobState.COMPLETE, null, null, FireKind.TIMETABLE)
                : new dev.kairos.spi.ConcurrentRun.Next(
                    JobState.SCHEDULED, next, Jitter.due(r.spec(), next), FireKind.TIMETABLE);
    dev.kairos.spi.ConcurrentRun run =
        new dev.kairos.spi.ConcurrentRun(
            r.key(),
            r.version(),
            fire.scheduled(),
            start,
            config.instanceId(),
            bound,
            state,
            cluster != null,
            cluster != null ? dispatcher.limitOf(r).orElse(null) : null);
    Optional<dev.kairos.spi.ConcurrentRun.Answer> answer =
        retrying(
            "starting a run of job '" + r.key() + "'",
            () -> config.store().startConcurrentRun(run));
    if (answer.isEmpty()) {
      return null; // closing: the fire stays due in the store
    }
    switch (answer.get().outcome()) {
      case STARTED -> {} // below
      case FULL -> {
        log.debug(
            "job '{}': fire {} waits: {} runs of it are recorded in the store",
            r.key(),
            fire.scheduled(),
            bound);
        dispatcher.lanesFullInStore(e, config.time().now().plus(LANE_POLL));
        return r;
      }
      case LIMIT_FULL -> {
        return limitFull(e, r, fire, run.limit());
      }
      case NOT_DUE -> {
        dispatcher.notBefore(e, config.time().now().plus(config.cluster().poll()));
        return r;
      }
      case CHANGED -> {
        log.debug(
            "job '{}': fire {} not run: the job changed or another instance started it",
            r.key(),
            fire.scheduled());
        if (cluster == null) {
          return null; // a change made here: it reached the entry, and finish() applies it
        }
        return retrying("reading job '" + r.key() + "'", () -> config.store().find(r.key()))
            .flatMap(x -> x)
            .orElse(null);
      }
    }
    JobRecord stored = answer.get().started().orElseThrow();
    recordSkipped(r.key(), tt, fire.oldestDropped(), fire.dropped(), r.spec().misfire());
    calendarDrops(r, tt, r.nextFireTime(), next);
    Permits permit = dispatcher.startLane(e);
    handoff.queued = true;
    afterRun(e, stored); // the entry is queued for its next fire; this run goes on beside it
    RunContext ctx =
        new RunContext(
            r.key(),
            r.spec().handler(),
            r.spec().data(),
            fire.scheduled(),
            start,
            1,
            fire.missedFires(),
            recovery);
    try {
      runLane(r, ctx, start);
    } finally {
      dispatcher.laneEnded(e, permit);
    }
    return null;
  }

  /** Runs a concurrent run's handler and writes its end; see {@link #runConcurrently}. */
  private void runLane(JobRecord r, RunContext ctx, Instant localStart) {
    log.debug("job '{}': concurrent run of fire {} starts", r.key(), ctx.scheduledFireTime());
    listeners.runStarted(ctx);
    Throwable failure = null;
    RunOutcome outcome = RunOutcome.SUCCESS;
    inHandler.incrementAndGet();
    try {
      config.handlers().get(r.spec().handler()).run(ctx);
    } catch (InterruptedException ie) {
      failure = ie;
      outcome = closing.getAsBoolean() ? RunOutcome.INTERRUPTED : RunOutcome.FAILURE;
    } catch (Throwable t) { // a job's failure, whatever it is, must not kill the worker
      failure = t;
      outcome = RunOutcome.FAILURE;
    } finally {
      inHandler.decrementAndGet();
    }
    boolean interrupted = Thread.interrupted(); // a store call must not see the flag
    Duration ran = Duration.between(localStart, config.time().now());
    Instant end = ctx.actualStart().plus(ran.isNegative() ? Duration.ZERO : ran);
    Duration took = Duration.between(ctx.actualStart(), end);
    if (failure == null) {
      log.debug("job '{}': fire {} succeeded in {}", ctx.key(), ctx.scheduledFireTime(), took);
      listeners.runSucceeded(ctx, took);
    } else if (outcome == RunOutcome.INTERRUPTED) {
      log.warn(
          "job '{}': concurrent run of fire {} interrupted by shutdown; it runs again at the next"
              + " start",
          ctx.key(),
          ctx.scheduledFireTime());
      listeners.runFailed(ctx, failure, false);
    } else {
      log.error(
          "job '{}': run of fire {} failed",
          ctx.key(),
          ctx.scheduledFireTime(),
          Failures.loggable(failure));
      listeners.runFailed(ctx, failure, false);
    }
    if (outcome != RunOutcome.INTERRUPTED) { // cut off by close(): its record stays, to run again
      RunRecord done = runRecord(ctx, 1, end, outcome, failure);
      long begin = System.nanoTime();
      Optional<Boolean> written =
          retrying(
              "writing back a concurrent run of job '" + ctx.key() + "'",
              () -> config.store().finishConcurrentRun(done, config.instanceId()));
      if (written.isEmpty()) {
        log.error(
            "job '{}': write-back of concurrent run {} abandoned at shutdown; it runs again",
            ctx.key(),
            ctx.scheduledFireTime());
      } else {
        listeners.runWrittenBack(ctx, Duration.ofNanos(System.nanoTime() - begin));
        if (!written.get()) {
          log.info(
              "job '{}': concurrent run {} was taken over by another instance or its job is gone",
              ctx.key(),
              ctx.scheduledFireTime());
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private RunResult result(
      JobRecord r,
      Timetable tt,
      Fire fire,
      RunContext ctx,
      Instant end,
      RunOutcome outcome,
      Throwable failure,
      boolean replaced) {
    ScheduleState next = nextState(r, tt, fire, outcome, replaced, ctx.actualStart(), end);
    calendarDrops(r, tt, r.nextFireTime(), next.nextFireTime());
    return new RunResult(
        runRecord(ctx, fire.attempt(), end, outcome, failure), r.version(), next, r.spec());
  }

  /** The run as history keeps it. */
  private RunRecord runRecord(
      RunContext ctx, int attempt, Instant end, RunOutcome outcome, Throwable failure) {
    return new RunRecord(
        ctx.key(),
        ctx.scheduledFireTime(),
        ctx.actualStart(),
        end,
        outcome,
        JobRules.errorText(failure),
        attempt,
        config.instanceId(),
        ctx.recovery(),
        ctx.missedFires());
  }

  /**
   * The schedule state a write-back leaves: state, next timetable fire, due time, kind, attempt.
   */
  private ScheduleState nextState(
      JobRecord r,
      Timetable tt,
      Fire fire,
      RunOutcome outcome,
      boolean replaced,
      Instant start,
      Instant end) {
    if (outcome == RunOutcome.INTERRUPTED && !replaced) {
      // Cut short by shutdown: the schedule stays where it was, so the next start runs it again.
      return r.schedule().withState(JobState.SCHEDULED);
    }
    Instant next =
        overlap(
            r,
            tt,
            fire.kind() == FireKind.TRIGGER
                ? r.nextFireTime()
                : tt.afterRun(fire.scheduled(), end).orElse(null),
            start,
            end);
    boolean paused = r.state() == JobState.PAUSED;
    Instant retryAt = retryAt(r, fire, outcome, end);
    if (retryAt != null && !paused) {
      return new ScheduleState(
          JobState.SCHEDULED, next, retryAt, FireKind.RETRY, fire.attempt() + 1);
    }
    JobState state =
        next == null ? JobState.COMPLETE : paused ? JobState.PAUSED : JobState.SCHEDULED;
    Instant due = state == JobState.SCHEDULED ? Jitter.due(r.spec(), next) : null;
    return new ScheduleState(state, next, due, FireKind.TIMETABLE, 1);
  }

  /** The fire after a run, once the job's overlap policy has dropped what it drops (reported). */
  private Instant overlap(JobRecord r, Timetable tt, Instant next, Instant start, Instant end) {
    OverlapRule.Decision d = OverlapRule.after(tt, r.spec().overlap(), next, start, end);
    if (d.dropped() > 0) {
      log.info(
          "job '{}': overlap policy {} drops {} fire(s) that came due during its run from {}"
              + " to {} (oldest {}); next fire {}",
          r.key(),
          r.spec().overlap(),
          d.dropped(),
          start,
          end,
          d.oldestDropped(),
          d.next());
      listeners.overlapDropped(r.key(), d.oldestDropped(), d.dropped(), r.spec().overlap());
      recordSkipped(r.key(), tt, d.oldestDropped(), d.dropped(), "overlap " + r.spec().overlap());
    }
    return d.next();
  }

  /**
   * Watches a run of a {@link Overlap#replace() replace} job: its worker is interrupted when the
   * first fire scheduled after the run's start comes due. Null for other policies, and for jobs
   * whose next fire cannot come due during a run (fixed delay, one-shot).
   */
  private RunReplacer.Watch replaceWatch(JobRecord r, Timetable tt, Fire fire, Instant start) {
    if (!(r.spec().overlap() instanceof Overlap.Replace)
        || r.spec().schedule() instanceof Schedule.FixedDelay) {
      return null;
    }
    // The timetable's fire after this one (a trigger's: the stored next fire), then past the
    // start: fires already due when the run started are a backlog, not a replacement.
    Instant next =
        fire.kind() == FireKind.TRIGGER
            ? r.nextFireTime()
            : tt.successor(fire.scheduled()).orElse(null);
    if (next != null && !next.isAfter(start)) {
      next = tt.nth(next, tt.countDue(next, start, Timetable.WALK_CAP)).orElse(null);
    }
    if (next == null || !next.isAfter(start)) {
      return null; // no later fire (or a walk stopped by its cap): nothing replaces this run
    }
    return replacer.watch(r.key(), Jitter.due(r.spec(), next), next);
  }

  /** What a replaced run failed with: the interruption, with the fire that replaced it. */
  static final class ReplacedException extends Exception {
    private static final long serialVersionUID = 1L;
    final transient Instant replacedBy;

    ReplacedException(Instant replacedBy, Throwable cause) {
      super("replaced by the fire of " + replacedBy + " (overlap policy replace)", cause);
      this.replacedBy = replacedBy;
    }

    @Override
    public String toString() {
      return getMessage() + ": " + JobRules.errorText(getCause());
    }
  }

  /** When to retry a failed fire, or null if its retry policy is spent (or it was a trigger). */
  private static Instant retryAt(JobRecord r, Fire fire, RunOutcome outcome, Instant end) {
    int max = r.spec().retry().maxAttempts();
    if (outcome != RunOutcome.FAILURE || fire.kind() == FireKind.TRIGGER || fire.attempt() >= max) {
      return null;
    }
    return Timetables.plus(end, r.spec().retry().delayBefore(fire.attempt() + 1));
  }

  private void report(RunContext ctx, RunResult result, Throwable failure, Duration took) {
    if (failure == null) {
      log.debug("job '{}': fire {} succeeded in {}", ctx.key(), ctx.scheduledFireTime(), took);
      listeners.runSucceeded(ctx, took);
      return;
    }
    boolean willRetry = result.dueKind() == FireKind.RETRY;
    if (failure instanceof ReplacedException x) {
      log.info(
          "job '{}': run of fire {} ended by interruption; fire {} replaces it",
          ctx.key(),
          ctx.scheduledFireTime(),
          x.replacedBy);
    } else if (result.outcome() == RunOutcome.INTERRUPTED) {
      log.warn(
          "job '{}': run of fire {} interrupted by shutdown; it runs again at the next start",
          ctx.key(),
          ctx.scheduledFireTime());
    } else {
      log.error(
          "job '{}': run of fire {} (attempt {}) failed{}",
          ctx.key(),
          ctx.scheduledFireTime(),
          ctx.attempt(),
          willRetry ? "; retry at " + result.dueTime() : "",
          Failures.loggable(failure));
    }
    listeners.runFailed(ctx, failure, willRetry);
  }

  // ---- store calls -----------------------------------------------------------------------------

  /**
   * The claim was lost. If the winner has already written back, continue from its state; if it is
   * still running, drop the entry: its write-back reaches us through the change feed. What the feed
   * delivered while the entry was taken settles it without a read. If the job is as it was taken
   * (same version and due time), either the fire is not yet due by the store's clock (this
   * instance's clock runs ahead of it: the claim is judged by the store's), and the entry is queued
   * again for when it is; or another instance holds a live lease on it (a trigger or a new
   * definition arrived during that instance's run), and the entry is dropped rather than retried in
   * a tight loop until the lease ends: the holder's write-back comes through the feed, and if the
   * holder dies its expired lease is recovered.
   */
  private JobRecord afterLostClaim(Entry e, JobRecord taken, Fire fire) {
    JobRecord seen = dispatcher.seenElsewhere(e, taken);
    if (seen != null) { // the winner's claim or write-back came through the feed: no read needed
      claimLost(taken, fire);
      return seen.state() == JobState.RUNNING ? null : seen;
    }
    JobRecord r =
        retrying("reading job '" + taken.key() + "'", () -> cluster.find(taken.key()))
            .flatMap(x -> x)
            .filter(x -> x.state() != JobState.RUNNING)
            .orElse(null);
    if (r == null
        || r.version() != taken.version()
        || !java.util.Objects.equals(r.dueTime(), taken.dueTime())) {
      claimLost(taken, fire);
      return r;
    }
    Instant storeNow = retrying("reading the store's clock", cluster::storeNow).orElse(null);
    if (storeNow == null || r.dueTime() == null) {
      claimLost(taken, fire);
      return null;
    }
    if (r.dueTime().isAfter(storeNow)) {
      Duration early = Duration.between(storeNow, r.dueTime());
      log.debug(
          "job '{}': fire {} not yet due by the store's clock ({} early)",
          r.key(),
          r.dueTime(),
          early);
      // This clock is ahead of the store's. If it follows the store's (cluster mode's default), it
      // is only until its next sample, which would move it back; queued again at "now + early" on
      // the uncorrected clock, the fire would then run late by the whole difference. So sample
      // first: "now" is then the store's, and the fire comes due at its time.
      config.resampleClock().run();
      dispatcher.notBefore(e, config.time().now().plus(early));
      return r;
    }
    // Due now, but maybe not yet when the claim was judged a moment ago, or skipped by a batch
    // because another transaction held the row: try once more at once, alone (claimWithOthers),
    // waiting for the row's lock. A second loss on the same record means a live lease elsewhere.
    if (dispatcher.retryClaimOnce(e, r)) {
      return r;
    }
    claimLost(taken, fire);
    return null;
  }

  /**
   * Cluster mode, just before the handler: true if the claim can still be this instance's. A claim
   * won more than half a lease ago (the process was stopped or paused between the claim and the
   * run: its lease may have lapsed and another instance may have recovered and run the fire) is
   * verified by renewing it in the store, which succeeds only while the row's claim is still this
   * instance's on this fire; if it is not, the fire is not run here.
   */
  private boolean claimStillHeld(Entry e, String key, Instant claimedFire) {
    long age = dispatcher.claimAgeNanos(e);
    if (age < config.cluster().lease().toNanos() / 2) {
      return true;
    }
    boolean held =
        retrying(
                "verifying the claim of job '" + key + "'",
                () ->
                    cluster.renewClaims(
                        config.instanceId(),
                        java.util.Map.of(key, claimedFire),
                        config.cluster().lease()))
            .map(n -> n == 1)
            .orElse(false);
    if (!held) {
      log.warn(
          "job '{}': fire {} not run here: its claim was won {} ms ago, longer than half a lease"
              + " (this process was paused), and is no longer this instance's",
          key,
          claimedFire,
          age / 1_000_000);
    }
    return held;
  }

  /** Tells the listeners that another instance has the fire (not while closing: see below). */
  private void claimLost(JobRecord taken, Fire fire) {
    if (!closing.getAsBoolean()) { // closing, an empty claim may be a store call given up
      listeners.claimLost(taken.key(), fire.scheduled());
    }
  }

  /**
   * Cluster mode: the fire to run, decided again at the claim's time if the misfire rule, on this
   * instance's clock, chose a timetable fire not yet due by the store's clock. The claim checks
   * only the job's due time (its oldest missed fire); with an instance clock ahead of the store's
   * (a skew, or an offset sampled while the database restarted), coalescing policies such as {@code
   * fireOnce()} would otherwise run a later fire before it is due. Decided at the claim's time, the
   * fire is at most that time; if the rule would then run nothing, the fire stays.
   */
  private Fire notAfter(JobRecord claimed, Timetable tt, Fire fire, Instant claimedAt) {
    if (fire.kind() != FireKind.TIMETABLE
        || !Jitter.due(claimed.spec(), fire.scheduled()).isAfter(claimedAt)) {
      return fire;
    }
    MisfireRule.Decision d =
        MisfireRule.decide(
            tt,
            claimed.nextFireTime(),
            t -> Jitter.due(claimed.spec(), t),
            claimedAt,
            claimed.spec().misfire());
    if (!d.runs()) {
      return fire;
    }
    log.debug(
        "job '{}': fire {} not yet due by the store's clock ({}); runs fire {} instead",
        claimed.key(),
        fire.scheduled(),
        claimedAt,
        d.fire());
    return fire(d, claimed.nextFireTime(), claimed.spec().misfire());
  }

  /** Most fires claimed in one store call (cluster mode, a store that batches runs). */
  static final int CLAIM_BATCH = 64;

  /**
   * About how much handler time a claim batch gives each free worker: fires claimed together wait
   * for a worker here (while another instance could have run them), so a batch holds no more than
   * this much work per worker not inside a handler, by the recent average run time.
   */
  static final long BATCH_WORK_NANOS = 50_000_000L;

  /** Workers inside a handler right now. */
  private final java.util.concurrent.atomic.AtomicInteger inHandler =
      new java.util.concurrent.atomic.AtomicInteger();

  /** A rough moving average of handler run times, in nanoseconds. */
  private volatile long runNanos;

  /**
   * How many due fires to claim with a worker's own: {@link #CLAIM_BATCH} at most, and about {@link
   * #BATCH_WORK_NANOS} of recent handler time for each worker not inside a handler (this one
   * included, for whom it is after its own fire), so that claimed fires start soon: with long runs
   * and every other worker busy, none.
   */
  int claimAhead() {
    int free = Math.max(1, config.workers() - inHandler.get());
    long perWorker = Math.max(1, BATCH_WORK_NANOS / Math.max(1, runNanos));
    return (int) Math.min(CLAIM_BATCH - 1, free * perWorker - 1);
  }

  /**
   * A fire decided and claimed in a batch by one worker, run by whichever takes its entry from the
   * dispatcher's ready queue.
   *
   * @param taken the record the fire was decided from (the claim's expected record)
   * @param claim the claim's answer: the claimed record, or empty if it was lost
   */
  record ReadyRun(JobRecord taken, Timetable tt, Fire fire, Optional<ClusterStore.Claimed> claim) {}

  /**
   * Claims {@code taken}'s fire; with a write-back queue, together with the due fires of this
   * instance's share that are queued behind it: they are taken from the heap, decided, claimed in
   * one store call with this one, and handed to the other workers with their answers ({@link
   * Dispatcher#handOut}), so that a backlog costs one claim transaction per batch, not per fire.
   * Returns this fire's answer. A fire whose claim is being retried ({@link Entry#retriedClaim}) is
   * claimed alone: a batch may have skipped its row because another transaction held it, and a lone
   * claim waits for that transaction's end (see {@link ClusterStore#claimAll}).
   */
  private Optional<ClusterStore.Claimed> claimWithOthers(Entry e, JobRecord taken) {
    if (writeBacks == null || e.recovery || e.retriedClaim != null) {
      return claim(taken);
    }
    int ahead = claimAhead();
    List<Entry> others = ahead > 0 ? dispatcher.takeDue(ahead, this::runnable, e) : List.of();
    if (others.isEmpty()) {
      return claim(taken);
    }
    List<String> counted = new ArrayList<>(others.size() + 1); // see Dispatcher#takeDue
    if (dispatcher.tracksBatches()) {
      counted.add(e.key);
      others.forEach(o -> counted.add(o.key));
    }
    try {
      return claimInBatch(e, taken, others, counted);
    } finally {
      dispatcher.leaveBatch(counted); // if the claim did not get that far (else empty by then)
    }
  }

  /**
   * {@link #claimWithOthers} once the others are taken; {@code counted} is left (and emptied) right
   * after the claim's store call, before anything that may wait for the change lock.
   */
  private Optional<ClusterStore.Claimed> claimInBatch(
      Entry e, JobRecord taken, List<Entry> others, List<String> counted) {
    List<Entry> claiming = new ArrayList<>();
    List<Decision> decisions = new ArrayList<>();
    List<JobRecord> records = new ArrayList<>(List.of(taken));
    for (Entry o : others) {
      Decision d;
      try {
        d = decide(o, o.record);
      } catch (RuntimeException ex) {
        drop(o, ex);
        continue;
      }
      if (d.fire() == null) {
        afterRun(o, d.stored()); // the misfire policy runs nothing now
        continue;
      }
      claiming.add(o);
      decisions.add(d);
      records.add(o.record);
    }
    List<Optional<ClusterStore.Claimed>> answers;
    long issued = System.nanoTime();
    try {
      answers =
          records.size() == 1
              ? List.of(claim(taken))
              : retrying(
                      "claiming " + records.size() + " job(s)",
                      () ->
                          cluster.claimAll(records, config.instanceId(), config.cluster().lease()))
                  .orElseGet(() -> Collections.nCopies(records.size(), Optional.empty()));
    } catch (RuntimeException ex) { // not retried (an unreadable row): each settles as lost
      log.warn("claiming {} job(s) failed; each is settled as a lost claim", records.size(), ex);
      answers = Collections.nCopies(records.size(), Optional.empty());
    } finally {
      dispatcher.leaveBatch(counted);
      counted.clear();
    }
    for (int i = 0; i < claiming.size(); i++) {
      Entry o = claiming.get(i);
      Optional<ClusterStore.Claimed> answer = answers.get(i + 1);
      answer.ifPresent(c -> dispatcher.claimed(o, c.record().dueTime(), issued)); // renewed now
      Decision d = decisions.get(i);
      o.ready = new ReadyRun(o.record, d.tt(), d.fire(), answer);
    }
    dispatcher.handOut(claiming);
    return answers.get(0);
  }

  /** Runs (or, its claim lost, settles) a fire another worker decided and claimed. */
  private JobRecord runReady(Entry e, ReadyRun ready, Handoff handoff) {
    if (ready.claim().isEmpty()) {
      log.debug("job '{}': fire {} claimed by another instance", ready.taken().key(), ready.fire());
      return afterLostClaim(e, ready.taken(), ready.fire());
    }
    return run(e, ready.taken(), ready.tt(), ready.fire(), handoff, ready.claim());
  }

  /**
   * Cluster mode: the store refused the claim because the fire's concurrency limit is full across
   * the cluster. The entry is queued again one poll interval later (not at once: a busy loop
   * against the store), with its record unchanged; its misfire policy is judged again then. Until
   * then the limit backs off on this instance ({@link Dispatcher#limitFull}): the fires waiting for
   * it do not each ask the store.
   */
  private JobRecord limitFull(
      Entry e, JobRecord taken, Fire fire, dev.kairos.ConcurrencyLimit limit) {
    log.debug(
        "job '{}': fire {} waits, concurrency limit '{}' ({}) is full in the cluster",
        taken.key(),
        fire.scheduled(),
        limit.name(),
        limit.permits());
    dispatcher.limitFull(e, config.time().now().plus(config.cluster().poll()));
    return taken;
  }

  private ClusterStore.LimitedClaim claimWithin(JobRecord r, dev.kairos.ConcurrencyLimit limit) {
    return retrying(
            "claiming job '" + r.key() + "'",
            () -> cluster.claimWithin(r, config.instanceId(), config.cluster().lease(), limit))
        .orElseGet(() -> new ClusterStore.LimitedClaim(Optional.empty(), false));
  }

  private Optional<ClusterStore.Claimed> claim(JobRecord r) {
    return retrying(
            "claiming job '" + r.key() + "'",
            () -> cluster.claim(r, config.instanceId(), config.cluster().lease()))
        .flatMap(c -> c);
  }

  private void markStarted(String key, Instant fire, Instant start) {
    try {
      config.store().runStarted(key, fire, start, config.instanceId());
    } catch (RuntimeException ex) {
      health.failed("marking the start of job '" + key + "'", ex);
    }
  }

  /**
   * Writes back until the store takes it, then tells the listeners how long that took (real time:
   * the store's latency is real whatever the scheduler's clock); gives up only when closing after
   * the grace period.
   */
  private Optional<JobRecord> writeBack(RunResult result, RunContext ctx) {
    long begin = System.nanoTime();
    Optional<Optional<JobRecord>> answer =
        retrying(
            "writing back job '" + result.key() + "'", () -> config.store().runFinished(result));
    return writtenBack(result, ctx, answer, begin);
  }

  /**
   * Reports a write-back's answer: its latency to the listeners, or, if it was abandoned at
   * shutdown (empty), an error saying the fire runs again.
   */
  private Optional<JobRecord> writtenBack(
      RunResult result, RunContext ctx, Optional<Optional<JobRecord>> answer, long begin) {
    if (answer.isPresent()) {
      listeners.runWrittenBack(ctx, Duration.ofNanos(System.nanoTime() - begin));
    }
    return answer.orElseGet(
        () -> {
          log.error(
              "job '{}': write-back of fire {} abandoned at shutdown; the fire runs again"
                  + " at the next start",
              result.key(),
              result.scheduledFireTime());
          return Optional.empty();
        });
  }

  private JobRecord replace(JobRecord current, JobRecord updated) {
    return replace(current, updated, () -> {});
  }

  /**
   * Stores {@code updated} if the job is still at {@code current}'s version, else reads what is
   * stored; calls {@code applied} after the call if {@code updated} was the one stored.
   */
  private JobRecord replace(JobRecord current, JobRecord updated, Runnable applied) {
    boolean[] stored = {false};
    JobRecord r =
        retrying(
                "updating job '" + current.key() + "'",
                () -> {
                  Optional<JobRecord> x = config.store().replace(updated, current.version());
                  stored[0] = x.isPresent();
                  return x.or(() -> config.store().find(current.key())).orElse(null);
                })
            .orElse(null);
    if (stored[0]) {
      applied.run();
    }
    return r;
  }

  /**
   * Calls the store until it answers, backing off between attempts; empty only if the scheduler
   * closes and the grace period runs out first. (A null answer is returned as empty too.)
   */
  private <T> Optional<T> retrying(String what, java.util.function.Supplier<T> call) {
    Duration backoff = FIRST_BACKOFF;
    Instant giveUp = null;
    for (; ; ) {
      try {
        T answer = call.get();
        health.ok();
        return Optional.ofNullable(answer);
      } catch (UnreadableJobException ex) {
        throw ex; // permanent: retrying cannot help
      } catch (RuntimeException ex) {
        health.failed(what, ex);
      }
      if (closing.getAsBoolean()) {
        Instant now = TimeSource.system().now();
        giveUp = giveUp == null ? now.plus(config.gracePeriod()) : giveUp;
        if (now.isAfter(giveUp)) {
          return Optional.empty();
        }
      }
      if (!health.pause(backoff)) {
        return Optional.empty();
      }
      backoff =
          backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
              ? MAX_BACKOFF
              : backoff.multipliedBy(2);
    }
  }

  private JobRecord applyTrigger(JobRecord stored) {
    JobRecord triggered = stored.triggered(config.time().now());
    return replace(stored, triggered);
  }

  /**
   * A trigger requested while the entry was taken but did not run here (a lost claim in cluster
   * mode, or a run given up because a change arrived first) goes to the store, for whichever worker
   * or instance runs the job next, as {@code triggerNow} does for a job that is not running.
   */
  private JobRecord triggerInStore(String key) {
    for (; ; ) {
      Optional<JobRecord> current =
          retrying("reading job '" + key + "'", () -> config.store().find(key)).flatMap(r -> r);
      if (current.isEmpty()) {
        return null;
      }
      JobRecord r = current.get();
      JobRecord triggered = r.triggered(config.time().now());
      Optional<JobRecord> stored =
          retrying(
                  "triggering job '" + key + "'",
                  () -> config.store().replace(triggered, r.version()))
              .flatMap(x -> x);
      if (stored.isPresent() || closing.getAsBoolean()) {
        return stored.orElse(null);
      }
    }
  }
}
