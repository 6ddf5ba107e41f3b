package dev.kairos;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A running job scheduler over a job store. Built by {@code dev.kairos.engine.Kairos.builder()}.
 *
 * <p>Guarantees: a job never runs concurrently with itself; fires due at the same instant run in
 * the order they were scheduled; a job that throws keeps its schedule; every change that returned
 * is in the store.
 *
 * <p>Errors: every method throws {@link NullPointerException} naming the parameter for a null
 * argument (for example {@code "key must not be null"}), and {@link IllegalStateException} when
 * called after {@link #close()}.
 */
public interface Scheduler extends AutoCloseable {

  /** Loads the due jobs from the store and starts the workers. Idempotent. */
  void start();

  /**
   * Creates or updates a job (an upsert: call it at every application start). If the key exists
   * with the same definition, its state (next fire time, counters) is kept; if the definition
   * changed, it is replaced and its next fire time recomputed.
   *
   * @param spec the job's definition
   * @return the stored job after the call
   * @throws IllegalArgumentException naming the key and the value, for an invalid definition
   */
  JobInfo schedule(JobSpec spec);

  /**
   * {@link #schedule} for many jobs at once, written in a few large transactions instead of one per
   * job: each job is upserted exactly as {@code schedule} would (state kept for an unchanged
   * definition). Every spec is checked before anything is written; one exception names every bad
   * key, and duplicate keys in the batch.
   *
   * <p>The batch is written in chunks of 1,000 jobs, one store call (on the JDBC store, one
   * transaction) each. If the store fails midway, the chunks before are stored and the exception
   * says how many jobs; calling again with the same specs finishes the batch (it is an upsert).
   *
   * @param specs the jobs to schedule, with distinct keys
   * @return the stored jobs after the call, in the order of {@code specs}
   * @throws IllegalArgumentException naming every invalid spec and every duplicate key; nothing is
   *     written then
   */
  List<JobInfo> scheduleAll(Collection<JobSpec> specs);

  /**
   * {@link #unschedule} for many jobs at once, in chunks of 1,000 keys, one transaction each.
   * Unknown keys are ignored; a key given twice counts once.
   *
   * @param keys the keys of the jobs to delete
   * @return how many jobs were deleted
   * @throws IllegalArgumentException if the collection or any key in it is null; nothing is deleted
   *     then
   */
  int unscheduleAll(Collection<String> keys);

  /**
   * The job with this key, if stored.
   *
   * @param key the job's key
   * @return the job, or empty if no job has this key
   */
  Optional<JobInfo> job(String key);

  /**
   * All stored jobs, ordered by key.
   *
   * @return every stored job, ordered by key
   */
  List<JobInfo> jobs();

  /**
   * Stops firing the job, keeping it. A running run finishes; a trigger not yet run is dropped. In
   * cluster mode a fire another instance claimed before the pause was stored has started, and runs
   * (its {@link JobContext#actualStart()} is the claim). Returns false if unknown.
   *
   * @param key the job's key
   * @return false if no job has this key
   */
  boolean pause(String key);

  /**
   * Resumes a paused job; missed fires follow its misfire policy. Returns false if unknown.
   *
   * @param key the job's key
   * @return false if no job has this key
   */
  boolean resume(String key);

  /**
   * Runs the job once now, outside its timetable (after its current run, if it is running); the
   * timetable is not moved. Works on paused jobs too. Returns false if unknown. Without cluster
   * mode, a trigger for a job whose run is going on this instance is kept in memory until that run
   * is written back: a crash before then loses it (the README's "Crash in the middle of a run").
   *
   * @param key the job's key
   * @return false if no job has this key
   */
  boolean triggerNow(String key);

  /**
   * Deletes the job. A running run finishes and is not re-queued. Returns false if unknown.
   *
   * @param key the job's key
   * @return false if no job has this key
   */
  boolean unschedule(String key);

  /**
   * Queues, durably, a run of every slot of the job's timetable in [{@code from}, {@code to}) (a
   * backfill, say after fixing a bug in last week's report) and returns at once; the runs follow in
   * the background, ascending by slot, one at a time per scheduler instance, each with {@link
   * JobContext#backfill()} true and {@link JobContext#scheduledFireTime()} the slot. The job's own
   * schedule is not moved, and no backfill run overlaps a run of the same job on this instance.
   *
   * <p>Slots: fixed rate, its timetable (anchored at the start instant, or else at the job's stored
   * fire times); cron, every match; a one-shot, its single fire if inside the window. A fixed-delay
   * job has no timetable apart from its runs and is refused. Jitter is not applied.
   *
   * <p>Idempotent: a slot queued or run by an earlier backfill of the job is not queued again, so
   * an overlapping call queues only the new slots. Queued slots survive a restart; in cluster mode
   * each runs on one live instance (again, as a recovery would, if its instance dies mid-run). A
   * paused job's slots wait for {@link #resume}; {@link #unschedule} deletes them.
   *
   * @param key the job's key
   * @param from the window's start, inclusive
   * @param to the window's end, exclusive; not after now, by the scheduler's clock
   * @return how many slots were newly queued (0 for an empty window or one queued before)
   * @throws IllegalArgumentException naming the key and the value: no job has the key, {@code from}
   *     is after {@code to}, {@code to} is in the future, the job has a fixed delay, or the window
   *     holds more than {@value #MAX_BACKFILL_SLOTS} slots
   * @throws UnsupportedOperationException if the store does not support backfill
   */
  int backfill(String key, java.time.Instant from, java.time.Instant to);

  /** The most slots one {@link #backfill} call queues; a larger window is refused: 100,000. */
  int MAX_BACKFILL_SLOTS = 100_000;

  /**
   * What the engine holds right now: queued and running jobs, workers, store availability. Reads
   * memory only, so it is cheap enough for a metrics gauge polled every few seconds.
   *
   * @return the current statistics
   */
  SchedulerStats stats();

  /**
   * Each configured {@linkplain ConcurrencyLimit concurrency limit} with the permits held and the
   * fires waiting for one, ordered by limit name. This instance's view: in cluster mode, runs on
   * other instances are not included (the store counts them when it judges a claim). Reads memory
   * only, like {@link #stats()}, so a gauge may poll it.
   *
   * <p>The default answers an empty list, for implementations without limits.
   *
   * @return a snapshot per limit, ordered by name; empty if no limit is configured
   */
  default List<LimitStatus> limits() {
    return List.of();
  }

  /**
   * The newest {@code limit} runs of the job, newest first.
   *
   * @param key the job's key
   * @param limit the most runs returned (not negative)
   * @return the runs, newest first
   */
  List<RunRecord> history(String key, int limit);

  /**
   * Stored jobs the scheduler refuses to read, ordered by key: rows that break a rule {@link
   * #schedule} enforces (a zero period, a negative threshold, a retry without its fire time, ...;
   * see {@code dev.kairos.spi.JobRules}) or that map to no job at all. Each is logged once, never
   * fired and never rewritten; {@link #schedule} of its key replaces it, {@link #unschedule}
   * deletes it. Reads the whole store.
   *
   * @return the unreadable jobs, ordered by key; empty if none
   */
  List<UnreadableJob> unreadable();

  /**
   * Stores a calendar under {@code name}, replacing one stored before. Jobs attached to it ({@link
   * JobSpec#excluding(String)}) have their next fire recomputed under the new definition (from
   * their last fire, or their current next fire if they have not fired yet).
   *
   * @param name the calendar's name (the rules of a job key)
   * @param calendar the calendar
   * @throws IllegalArgumentException naming the calendar, for an invalid name or definition
   */
  void putCalendar(String name, BusinessCalendar calendar);

  /**
   * The calendar stored under this name.
   *
   * @param name the calendar's name
   * @return the calendar, or empty if none has this name
   */
  Optional<BusinessCalendar> calendar(String name);

  /**
   * Every stored calendar, by name, ordered by name.
   *
   * @return the calendars, unmodifiable
   */
  java.util.SortedMap<String, BusinessCalendar> calendars();

  /**
   * Deletes the calendar, unless a job is attached to it.
   *
   * @param name the calendar's name
   * @return false if no calendar has this name
   * @throws IllegalStateException naming the jobs attached to it, or, on a JDBC store inside the
   *     application's own transaction at REPEATABLE READ, naming that level; nothing is deleted
   *     then
   */
  boolean removeCalendar(String name);

  /**
   * Stops taking new fires, waits for running jobs up to the grace period, then interrupts them and
   * stops all threads. Returns within the grace period plus 5 seconds (plus the time the store
   * takes to close): a job that ignores interruption is reported by key and left on a daemon
   * thread, which does not keep the JVM alive. Idempotent.
   *
   * <p>Called from a run of this scheduler (a job that shuts the application down, directly or
   * through a framework closing on the same thread), it cannot wait for that run: it stops
   * everything else as above and returns; the run is not interrupted, and is written back, and the
   * store closed, when it ends. Called from a listener on a thread the close waits for (a
   * write-back or cluster thread), it stops taking fires, hands the rest of the close to a thread
   * of its own and returns.
   *
   * <p>A call while an earlier close is under way returns once that close has ended (store closed):
   * it waits up to the grace period for a run that began the close, then interrupts it, and waits 5
   * seconds more. On a thread of this scheduler it returns at once.
   */
  @Override
  void close();
}
