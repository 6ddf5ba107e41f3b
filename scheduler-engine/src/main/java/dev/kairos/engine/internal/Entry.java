package dev.kairos.engine.internal;

import dev.kairos.spi.JobRecord;

/**
 * One job as the dispatcher tracks it: queued in the heap or running, never both. The same entry is
 * re-queued after each run, as ScheduledThreadPoolExecutor re-queues its task.
 *
 * <p>All fields are guarded by the {@link Dispatcher}'s lock.
 */
final class Entry {
  /** The job's key; also the key of the dispatcher's tracking map. */
  final String key;

  /** The stored job this entry was queued from; its version is what the write-back compares. */
  JobRecord record;

  /** Due time in nanoseconds since the epoch (saturated); the heap's first ordering key. */
  long due;

  /** Submission order among equal due times; the heap's second ordering key. */
  long seq;

  /** Position in the heap, or -1 iff not queued. */
  int heapIndex = -1;

  /** True while a worker runs it (then heapIndex is -1). */
  boolean running;

  /**
   * The concurrency limit whose permit this entry holds, or null: from when a worker takes it until
   * {@link Dispatcher#finish}, or while it is queued after a freed permit was handed to it.
   */
  Permits permit;

  /**
   * The concurrency limit in whose waiting heap this entry is queued (due, but the limit was full),
   * or null; then {@link #heapIndex} is its index in that heap.
   */
  Permits waitingFor;

  /**
   * True while the entry, due, is set aside because a caller's open transaction holds its row (see
   * {@link Dispatcher#holdForCaller}); then {@link #heapIndex} is -1 and it is not running.
   */
  boolean heldAside;

  /**
   * A record written by a schedule change while the entry was running; it wins over the worker's
   * write-back, since a change made during the run makes that write-back's version stale. Written
   * under the dispatcher's lock; volatile because {@link Dispatcher#beginRun} reads it without.
   */
  volatile JobRecord changedWhileRunning;

  /**
   * True when the job was unscheduled while running: it is not re-queued. Written under the
   * dispatcher's lock; volatile because {@link Dispatcher#beginRun} reads it without.
   */
  volatile boolean unscheduled;

  /** True when this entry repeats a fire interrupted by a crash. */
  boolean recovery;

  /** triggerNow was called while running: fire once more after the write-back. */
  boolean triggerRequested;

  /** The worker has taken the trigger request; later triggers go to the store. */
  boolean triggerTaken;

  /**
   * Cluster mode: set by a worker whose claim lost only because the fire was not yet due by the
   * store's clock; {@link Dispatcher#finish} queues the entry no earlier than this (time-source
   * nanoseconds), then clears it.
   */
  long notBefore = Long.MIN_VALUE;

  /**
   * Runs of this job under {@code allow(n)} going on this instance beside the entry (their starts
   * written, the entry handed back): see {@link Dispatcher#startLane}.
   */
  int lanes;

  /**
   * True while the entry's fire waits for one of its runs here to end ({@link
   * Dispatcher#lanesFull}): the first to end queues it due at once. {@link #laneBound} is the
   * number of runs below which it need not wait.
   */
  boolean laneWaits;

  /** See {@link #laneWaits}. */
  int laneBound;

  /**
   * Cluster mode: the record whose lost claim was retried once (see Dispatcher#retryClaimOnce);
   * while set, the entry is claimed alone, never in a batch.
   */
  JobRecord retriedClaim;

  /**
   * Cluster mode: the newest record the change feed delivered while the entry was taken (such a
   * change is otherwise left to the entry's own write-back), so that a lost claim can be settled
   * from what the winner wrote without reading the store. Cleared at finish.
   */
  JobRecord seenElsewhere;

  /** Cluster mode: the fire (due time) of the claim this worker won and runs, or null. */
  java.time.Instant claimedFire;

  /**
   * Cluster mode: when ({@link System#nanoTime()}) the claim on {@link #claimedFire} was sent to
   * the store (its lease starts no earlier).
   */
  long claimedAtNanos;

  /**
   * The batch whose start mark covers this entry at {@link #markedVersion}, or null (see {@link
   * Dispatcher#markBatch}); a mark of another version does not count.
   */
  MarkBatch mark;

  /** The record version {@link #mark} was made for. */
  long markedVersion;

  /**
   * Set by the worker when its run of the entry may start ({@link Dispatcher#beginRun} answered a
   * start); cleared by {@link Dispatcher#finish}. Tells a taken entry that closed before its run
   * from one that ran, for the start marks close clears; volatile because a change reads it under
   * the dispatcher's lock, which the worker does not take to set it ({@link
   * Dispatcher#goingRunStart}).
   */
  volatile boolean started;

  /**
   * The start of the entry's run, written by the worker before {@link #started} (so read after
   * {@code started} is seen true); a pause made during the run writes it to the store as the run's
   * last start ({@link KairosScheduler}).
   */
  java.time.Instant startedAt;

  /**
   * How many schedule changes of this job are being written to the store now ({@link
   * Dispatcher#changing}); written under the dispatcher's lock, volatile because a worker that
   * starts a run reads it without: a change whose write may have passed over the run's start mark
   * makes the worker mark the run again ({@link FireRunner}).
   */
  volatile int changesInFlight;

  /**
   * Cluster mode: set on a running entry that another worker took and claimed in a batch with its
   * own ({@link FireRunner}), and handed out through {@link Dispatcher#handOut}: the fire decided
   * and the claim's answer. Read and cleared by the worker that takes it from the ready queue.
   */
  FireRunner.ReadyRun ready;

  /** The timetable of {@link #timetableSpec}, kept so a cron expression is parsed once. */
  private Timetable timetable;

  private dev.kairos.JobSpec timetableSpec;

  /** The calendar {@link #timetable} was built with, or null. */
  private dev.kairos.BusinessCalendar timetableCalendar;

  Entry(String key, JobRecord record) {
    this.key = key;
    this.record = record;
  }

  /**
   * The timetable of {@code spec} with its calendar, built once per definition and calendar (only
   * the running worker calls).
   *
   * @throws dev.kairos.UnreadableJobException if the spec's calendar does not exist
   */
  Timetable timetable(dev.kairos.JobSpec spec, Calendars calendars) {
    dev.kairos.BusinessCalendar calendar = spec.calendar().flatMap(calendars::get).orElse(null);
    if (timetable == null || !spec.equals(timetableSpec) || calendar != timetableCalendar) {
      timetable = calendars.timetable(spec);
      timetableSpec = spec;
      timetableCalendar = calendar;
    }
    return timetable;
  }

  /** Orders by due time, then sequence. */
  boolean before(Entry o) {
    return due < o.due || (due == o.due && seq < o.seq);
  }

  /** Nanoseconds since the epoch of an instant, saturated to the long range. */
  static long nanos(java.time.Instant t) {
    if (t.getEpochSecond() >= Long.MAX_VALUE / 1_000_000_000L - 1) {
      return Long.MAX_VALUE;
    }
    if (t.getEpochSecond() <= Long.MIN_VALUE / 1_000_000_000L + 1) {
      return Long.MIN_VALUE;
    }
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  @Override
  public String toString() {
    return "Entry[" + key + " due " + java.time.Instant.ofEpochSecond(0, due) + "]";
  }
}
