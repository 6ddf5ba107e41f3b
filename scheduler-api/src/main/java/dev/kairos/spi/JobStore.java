package dev.kairos.spi;

import dev.kairos.RunRecord;
import dev.kairos.UnreadableJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Where jobs live. The engine keeps only the jobs due within its look-ahead horizon in memory and
 * asks the store for the rest window by window, so a store may hold far more jobs than fit in
 * memory.
 *
 * <p>Every method is atomic: it either happens completely or throws {@link
 * dev.kairos.StoreException} and changes nothing. A method that returned has made its change
 * durable.
 *
 * <p>A store that wraps another (to count or trace its calls) must forward every method, the
 * default ones included, and {@link ClusterStore}'s when the wrapped store is one: a default left
 * in place answers for the wrapper, not for the store it wraps ({@link #batchesRuns()} false writes
 * every run back in a transaction of its own, {@link #unholdable} and {@link #runsStarted} left out
 * weaken what the engine checks and marks, an optional capability such as {@link #addBackfill}
 * throws).
 */
public interface JobStore extends StoreSource, AutoCloseable {

  /**
   * This store itself: a job store is its own {@link StoreSource}.
   *
   * @return this store
   */
  @Override
  default JobStore jobStore() {
    return this;
  }

  /** Prepares the store (schema, pool). Called once by the scheduler's {@code start()}. */
  default void open() {}

  /**
   * Inserts {@code fresh} if no job has its key; if one has and its definition equals {@code
   * fresh.spec()}, leaves it; otherwise replaces its definition and schedule state with {@code
   * fresh}'s, keeping its statistics, and increments its version.
   *
   * @param fresh the job as newly scheduled
   * @return what the store did
   * @throws IllegalStateException from a store shared by instances, if {@code fresh} is attached to
   *     a calendar it does not hold (deleted by another instance since the engine looked; see
   *     {@link #deleteCalendar}; the message of {@link JobRules#calendarGone}); nothing is written
   *     then
   */
  Upsert upsert(JobRecord fresh);

  /**
   * The job with this key.
   *
   * @param key the job key
   * @return the job, or empty if there is none
   */
  Optional<JobRecord> find(String key);

  /**
   * All jobs, ordered by key. Meant for administration, not for the fire path.
   *
   * @return every job
   */
  List<JobRecord> findAll();

  /**
   * Replaces the job's definition and schedule state with {@code updated}'s if its stored version
   * is {@code expectedVersion}; statistics are kept.
   *
   * @param updated the new definition and schedule state
   * @param expectedVersion the version the change was read at
   * @return the stored record (version incremented), or empty if the key is gone or the version
   *     differs
   */
  Optional<JobRecord> replace(JobRecord updated, long expectedVersion);

  /**
   * Deletes the job, its history and its backfill slots. Returns false if there was none.
   *
   * @param key the job key
   * @return true if the job was deleted
   */
  boolean delete(String key);

  /**
   * Jobs with a due time, ordered by (due time, key), strictly after {@code after} (null: from the
   * start) and due strictly before {@code before}; at most {@code limit}. Keys of one due time may
   * come in the store's own order (a database's collation), the same in every call; the engine does
   * not assume Java's.
   *
   * @param after the position to start after, or null
   * @param before the due-time bound, exclusive
   * @param limit the most jobs returned
   * @return the jobs due in that window
   */
  List<JobRecord> due(WindowCursor after, Instant before, int limit);

  /**
   * Marks that a run of the job started: state {@code RUNNING} (unless paused) and last start. Does
   * not change the version. A store may make this durable lazily; until it is, a crash loses only
   * the recovery flag of the re-run, never the fire. A paused job's row keeps {@code PAUSED} and
   * takes the start: a single-instance scheduler reads a last start after the last end ({@link
   * RunStats#startNotEnded}) as a run that a crash cut off.
   *
   * @param key the job
   * @param scheduledFireTime the fire that starts
   * @param start when the run started
   * @param instance the instance that runs it
   */
  void runStarted(String key, Instant scheduledFireTime, Instant start, String instance);

  /**
   * Writes back a finished run in one transaction: statistics always, a history row, and the new
   * schedule state if the version still matches (else the state set meanwhile is kept, with {@code
   * RUNNING} turned back to {@code SCHEDULED}; if it is a trigger, its next fire time becomes the
   * result's, so the fire that ran does not run again after the trigger). A completed one-shot job
   * may be deleted, by the store's retention setting.
   *
   * @param result the finished run and the new schedule state
   * @return the job as now stored, or empty if it was deleted (meanwhile, or by retention)
   */
  Optional<JobRecord> runFinished(RunResult result);

  /**
   * Why this store cannot hold {@code text} as it is, or null if it can: a database whose encoding
   * lacks one of its characters (a PostgreSQL database in LATIN1 and a key in Japanese, say), or a
   * text longer than the database takes in one statement (MariaDB's {@code max_allowed_packet}).
   * The scheduler asks before writing a job's key, handler name, data and calendar name, so {@code
   * schedule} and {@code scheduleAll} refuse such a job with an {@link IllegalArgumentException}
   * naming its key and the field, and nothing is written; and at {@code start()} about its instance
   * id, written with every run. Null by default (stores that hold all of Unicode).
   *
   * @param text the text
   * @return the problem, naming the first character the store cannot hold, or null
   */
  default String unholdable(String text) {
    return null;
  }

  // ---- concurrent runs (Overlap.allow) ------------------------------------------------------

  /**
   * True if this store keeps concurrent runs ({@link #startConcurrentRun}, {@link
   * #finishConcurrentRun}, and their records among the backfill slots as {@link
   * BackfillSlot.Kind#RUN}); the scheduler refuses {@link dev.kairos.Overlap#allow(int)} jobs on a
   * store that does not. False by default.
   *
   * @return true if concurrent runs are supported
   */
  default boolean supportsConcurrentRuns() {
    return false;
  }

  /**
   * Starts a run of a job under {@link dev.kairos.Overlap#allow(int)}, in one transaction: if the
   * job is at {@code run.expectedVersion()} and fewer than {@code run.maxRuns()} of its runs are
   * recorded ({@link BackfillSlot.Kind#RUN} slots in any state), records the run (a RUN slot,
   * {@link BackfillSlot.State#RUNNING}, owned by {@code run.instance()}) and moves the job to
   * {@code run.next()}: new version, last scheduled fire and last start set, run count plus one, a
   * cluster claim on the row released; its last outcome, error, end and failure count are left as
   * they are. If the job already has a slot of any kind at this fire time (a backfill slot of the
   * same fire), no RUN slot is added and the job still moves on: that slot stands for the fire.
   *
   * <p>In cluster mode ({@code run.cluster()}) the start is the fire's claim: the version check
   * lets one instance start it; the job must also be due by the store's clock, and with a {@code
   * run.limit()} the limit's runs in the cluster (as {@link ClusterStore#claimWithin} counts them)
   * must leave a permit, judged one start or claim at a time per limit.
   *
   * @param run the run and the state the job moves to
   * @return STARTED with the job as now stored, or why it was refused (nothing changed then)
   * @throws UnsupportedOperationException by default
   */
  default ConcurrentRun.Answer startConcurrentRun(ConcurrentRun run) {
    throw new UnsupportedOperationException(
        "store " + this + " does not support concurrent runs (job '" + run.key() + "')");
  }

  /**
   * Writes a concurrent run's end in one transaction: its history row (as {@link #runFinished}
   * writes one) and the deletion of its RUN slot if {@code instance} still owns it. The job's row
   * is not touched.
   *
   * @param run the run, whose key and scheduled fire time name the slot
   * @param instance the instance that ran it
   * @return true if the slot was deleted; false if another instance had taken it over (it was given
   *     back as the instance was thought dead) or the job is gone
   */
  default boolean finishConcurrentRun(RunRecord run, String instance) {
    return false;
  }

  // ---- batched runs (stores whose writes cost a transaction) -------------------------------

  /**
   * True if this store writes runs far more cheaply in batches than one by one (a database, where
   * each write is a transaction). The engine then hands each finished run to {@link #runsFinished}
   * from a write-back queue instead of waiting for it, and marks runs about to start with {@link
   * #runsStarted}, several at once. False (the default) keeps the one-by-one calls. A store that
   * answers true must implement {@link #runsStarted} and {@link #runsNotStarted} (their defaults do
   * nothing) and should implement {@link #runsFinished} as one transaction.
   *
   * @return true if the engine should batch this store's run writes
   */
  default boolean batchesRuns() {
    return false;
  }

  /**
   * Marks jobs about to run, in one write where the store can: each row whose state is {@code
   * SCHEDULED} at the mark's version becomes {@code RUNNING}, so that a crash before its write-back
   * is recovered as an interrupted fire. Nothing else changes (not the version, not the last
   * start). The default calls nothing: a store that does not batch runs gets {@link #runStarted}.
   *
   * @param marks the jobs, with distinct keys
   */
  default void runsStarted(List<StartMark> marks) {}

  /**
   * Undoes {@link #runsStarted} for jobs that were marked but did not run (the scheduler closed
   * first): each row that is {@code RUNNING} at the mark's version becomes {@code SCHEDULED}.
   *
   * @param marks the jobs, with distinct keys
   */
  default void runsNotStarted(List<StartMark> marks) {}

  /**
   * {@link #runFinished} of each result, with the keys distinct. A store that overrides this writes
   * them in one transaction (all or none); the default calls {@link #runFinished} for each, so a
   * failure may leave a prefix written, which the engine's retry of each recognises as done.
   *
   * @param results the finished runs, with distinct keys
   * @return for each result, in the order given, the job as now stored, or empty if it was deleted
   */
  default List<Optional<JobRecord>> runsFinished(List<RunResult> results) {
    List<Optional<JobRecord>> out = new ArrayList<>(results.size());
    for (RunResult r : results) {
      out.add(runFinished(r));
    }
    return out;
  }

  /**
   * The newest {@code limit} runs of a job, newest first.
   *
   * @param key the job
   * @param limit the most runs returned
   * @return the runs, newest first
   */
  List<RunRecord> history(String key, int limit);

  /**
   * Appends a history entry for fires a misfire or overlap policy dropped ({@link
   * dev.kairos.RunOutcome#SKIPPED}), trimmed like run history; the job's row is not changed. The
   * default keeps no such entry (a store written before entries for skipped fires existed).
   *
   * @param skipped the entry
   */
  default void recordSkipped(RunRecord skipped) {}

  /**
   * Stored jobs this store cannot or will not read (a row no record maps to, or one that breaks
   * {@link JobRules#checkRecord(JobRecord)}), ordered by key. Such jobs are skipped by {@link #due}
   * and {@link #findAll}, and {@link #find} throws {@link dev.kairos.UnreadableJobException} for
   * them. A store that holds only what it was given (as the in-memory store does) has none: the
   * default.
   *
   * @return the unreadable jobs, ordered by key
   */
  default List<UnreadableJob> unreadable() {
    return List.of();
  }

  // ---- bulk writes ---------------------------------------------------------------------------

  /**
   * {@link #upsert} of each record, in order, with the keys distinct. A store that overrides this
   * writes the batch in one transaction (atomic: all or none); the default calls {@link #upsert}
   * once per record, so a failure may leave a prefix of the batch stored. The engine passes at most
   * a few hundred to a thousand records per call.
   *
   * @param fresh the records to upsert, with distinct keys
   * @return one result per record, in the order given
   */
  default List<Upsert> upsertAll(List<JobRecord> fresh) {
    List<Upsert> out = new ArrayList<>(fresh.size());
    for (JobRecord r : fresh) {
      out.add(upsert(r));
    }
    return out;
  }

  /**
   * How many {@link #upsertAll} calls the engine may make at once, from different threads, for one
   * bulk call of the user's (each call still one batch, with keys distinct from the others'). A
   * database server that writes two transactions side by side faster than one after the other says
   * 2; the default, 1, makes the calls one after the other.
   *
   * @return at least 1
   */
  default int parallelUpserts() {
    return 1;
  }

  /**
   * {@link #delete} of each key. A store that overrides this deletes the batch in one transaction;
   * the default calls {@link #delete} once per key.
   *
   * @param keys the keys of the jobs to delete
   * @return the keys that were deleted (the others had no job), each once
   */
  default List<String> deleteAll(Collection<String> keys) {
    List<String> out = new ArrayList<>();
    for (String key : keys) {
      if (delete(key)) {
        out.add(key);
      }
    }
    return out;
  }

  // ---- backfill ------------------------------------------------------------------------------

  /*
   * Backfill slots (Scheduler.backfill) live beside the jobs: one row per (key, fire time), never
   * queued twice. The engine picks, per job, the earliest slot not yet DONE when it is PENDING
   * (nextBackfill), so a job's slots run one at a time in order across instances; claims it with a
   * compare-and-set on its state (claimBackfill); and writes the run's history row with the DONE
   * state (finishBackfill). A claim whose instance died is given back by releaseBackfill. delete
   * and deleteAll delete a job's slots with it. The defaults suit a store without backfill:
   * addBackfill throws UnsupportedOperationException (so Scheduler.backfill does), the queries
   * find nothing.
   */

  /**
   * Queues a {@link BackfillSlot.State#PENDING PENDING} slot of the job for each fire time the
   * store holds no slot of the job for (in any state), in one write; nothing if no job has the key
   * (then or during the write: a job deleted meanwhile leaves no slot behind).
   *
   * @param key the job's key
   * @param fireTimes the slots, distinct and ascending
   * @return how many were new
   * @throws UnsupportedOperationException by default: the store does not support backfill
   */
  default int addBackfill(String key, List<Instant> fireTimes) {
    throw new UnsupportedOperationException(
        "store " + this + " does not support backfill (job '" + key + "')");
  }

  /**
   * For each job that has slots not yet {@link BackfillSlot.State#DONE DONE}, its earliest such
   * slot if that one is {@link BackfillSlot.State#PENDING PENDING} (a job whose earliest is RUNNING
   * has none to give), ordered by (fire time, key), at most {@code limit}.
   *
   * @param limit the most slots returned
   * @return the slots to claim next; empty by default
   */
  default List<BackfillSlot> nextBackfill(int limit) {
    return List.of();
  }

  /**
   * Claims a slot: if it is {@link BackfillSlot.State#PENDING PENDING}, it becomes {@link
   * BackfillSlot.State#RUNNING RUNNING} owned by {@code instance}, decided by the store (of two
   * instances claiming at once, one wins).
   *
   * @param key the job's key
   * @param fireTime the slot
   * @param instance the claiming instance
   * @return true if this call claimed it; false if it is gone or not pending
   */
  default boolean claimBackfill(String key, Instant fireTime, String instance) {
    return false;
  }

  /**
   * Writes a slot's finished run in one transaction: the history row {@code run} (as {@link
   * #runFinished} writes one, its {@link RunRecord#backfill()} flag kept, so {@link #history} reads
   * it back; the job's own state and statistics are left alone), and the slot {@link
   * BackfillSlot.State#DONE DONE} if {@code instance} still holds its claim. If the job is gone
   * (unscheduled during the run), nothing is written, as for {@link #runFinished}.
   *
   * @param run the run, whose key and scheduled fire time name the slot
   * @param instance the instance that ran it
   * @return true if the slot was marked done; false if the claim was lost (the slot was released,
   *     or deleted with its job)
   */
  default boolean finishBackfill(RunRecord run, String instance) {
    return false;
  }

  /**
   * Gives back the claims of instances that are gone: every {@link BackfillSlot.State#RUNNING
   * RUNNING} slot whose owner is not in {@code live} becomes {@link BackfillSlot.State#PENDING
   * PENDING}. With {@code live} empty (one instance, at its start), every claim is given back.
   *
   * @param live the instances whose claims stand
   * @return how many slots were given back
   */
  default int releaseBackfill(Collection<String> live) {
    return 0;
  }

  /**
   * The job's slots in every state, ascending by fire time: for administration and tests.
   *
   * @param key the job's key
   * @return the slots; empty by default
   */
  default List<BackfillSlot> backfillSlots(String key) {
    return List.of();
  }

  // ---- calendars -----------------------------------------------------------------------------

  /**
   * Stores the calendar under {@code name}, replacing one stored before. The default refuses: a
   * store without calendars keeps jobs without them.
   *
   * @param name the calendar's name, valid by {@link JobRules#checkCalendar}
   * @param calendar the calendar
   * @throws UnsupportedOperationException if the store keeps no calendars
   */
  default void putCalendar(String name, dev.kairos.BusinessCalendar calendar) {
    throw new UnsupportedOperationException("store " + this + " keeps no calendars");
  }

  /**
   * Every stored calendar, by name. A calendar whose stored definition breaks {@link
   * JobRules#checkCalendar} is left out (jobs attached to it are then refused as their calendar is
   * missing). The default has none.
   *
   * @return the calendars, ordered by name
   */
  default java.util.SortedMap<String, dev.kairos.BusinessCalendar> calendars() {
    return new java.util.TreeMap<>();
  }

  /**
   * Deletes the calendar unless a job refers to it, atomically with that check. A store shared by
   * instances also orders the delete with the upserts that attach jobs to the calendar (one
   * instance may delete it while another schedules on it): the delete is refused naming the job, or
   * the upsert is refused naming the calendar ({@link #upsert}); no job is left attached to a
   * calendar that is gone.
   *
   * @param name the calendar's name
   * @return false if there was none
   * @throws IllegalStateException naming the jobs that refer to it, or a transaction level at which
   *     the store cannot see them all; nothing is deleted then
   */
  default boolean deleteCalendar(String name) {
    return false;
  }

  /** Releases what the store opened (a pool it created); never a user's own data source. */
  @Override
  default void close() {}
}
