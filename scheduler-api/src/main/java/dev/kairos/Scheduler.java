package dev.kairos;

import java.util.List;
import java.util.Optional;

/**
 * A running job scheduler over a job store. Built by {@code dev.kairos.engine.Kairos.builder()}.
 *
 * <p>Guarantees: a job never runs concurrently with itself; fires due at the same instant run in
 * the order they were scheduled; a job that throws keeps its schedule; every change that returned
 * is in the store.
 */
public interface Scheduler extends AutoCloseable {

  /** Loads the due jobs from the store and starts the workers. Idempotent. */
  void start();

  /**
   * Creates or updates a job (an upsert: call it at every application start). If the key exists
   * with the same definition, its state (next fire time, counters) is kept; if the definition
   * changed, it is replaced and its next fire time recomputed.
   *
   * @return the stored job after the call
   * @throws IllegalArgumentException naming the key and the value, for an invalid definition
   */
  JobInfo schedule(JobSpec spec);

  /** The job with this key, if stored. */
  Optional<JobInfo> job(String key);

  /** All stored jobs, ordered by key. */
  List<JobInfo> jobs();

  /** Stops firing the job, keeping it. A running run finishes. Returns false if unknown. */
  boolean pause(String key);

  /** Resumes a paused job; missed fires follow its misfire policy. Returns false if unknown. */
  boolean resume(String key);

  /**
   * Runs the job once now, outside its timetable (after its current run, if it is running); the
   * timetable is not moved. Works on paused jobs too. Returns false if unknown.
   */
  boolean triggerNow(String key);

  /** Deletes the job. A running run finishes and is not re-queued. Returns false if unknown. */
  boolean unschedule(String key);

  /**
   * What the engine holds right now: queued and running jobs, workers, store availability. Reads
   * memory only, so it is cheap enough for a metrics gauge polled every few seconds.
   */
  SchedulerStats stats();

  /** The newest {@code limit} runs of the job, newest first. */
  List<RunRecord> history(String key, int limit);

  /**
   * Stored jobs the scheduler refuses to read, ordered by key: rows that break a rule {@link
   * #schedule} enforces (a zero period, a negative threshold, a retry without its fire time, ...;
   * see {@code dev.kairos.spi.JobRules}) or that map to no job at all. Each is logged once, never
   * fired and never rewritten; {@link #schedule} of its key replaces it, {@link #unschedule}
   * deletes it. Reads the whole store.
   */
  List<UnreadableJob> unreadable();

  /**
   * Stops taking new fires, waits for running jobs up to the grace period, then interrupts them and
   * stops all threads. Idempotent.
   */
  @Override
  void close();
}
