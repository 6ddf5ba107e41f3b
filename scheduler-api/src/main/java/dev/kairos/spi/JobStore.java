package dev.kairos.spi;

import dev.kairos.RunRecord;
import dev.kairos.UnreadableJob;
import java.time.Instant;
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
 */
public interface JobStore extends AutoCloseable {

  /** Prepares the store (schema, pool). Called once by the scheduler's {@code start()}. */
  default void open() {}

  /**
   * Inserts {@code fresh} if no job has its key; if one has and its definition equals {@code
   * fresh.spec()}, leaves it; otherwise replaces its definition and schedule state with {@code
   * fresh}'s, keeping its statistics, and increments its version.
   */
  Upsert upsert(JobRecord fresh);

  /** The job with this key. */
  Optional<JobRecord> find(String key);

  /** All jobs, ordered by key. Meant for administration, not for the fire path. */
  List<JobRecord> findAll();

  /**
   * Replaces the job's definition and schedule state with {@code updated}'s if its stored version
   * is {@code expectedVersion}; statistics are kept.
   *
   * @return the stored record (version incremented), or empty if the key is gone or the version
   *     differs
   */
  Optional<JobRecord> replace(JobRecord updated, long expectedVersion);

  /** Deletes the job and its history. Returns false if there was none. */
  boolean delete(String key);

  /**
   * Jobs with a due time, ordered by (due time, key), strictly after {@code after} (null: from the
   * start) and due strictly before {@code before}; at most {@code limit}.
   */
  List<JobRecord> due(WindowCursor after, Instant before, int limit);

  /**
   * Marks that a run of the job started: state {@code RUNNING} (unless paused) and last start. Does
   * not change the version. A store may make this durable lazily; until it is, a crash loses only
   * the recovery flag of the re-run, never the fire.
   */
  void runStarted(String key, Instant scheduledFireTime, Instant start, String instance);

  /**
   * Writes back a finished run in one transaction: statistics always, a history row, and the new
   * schedule state if the version still matches (else the state set meanwhile is kept, with {@code
   * RUNNING} turned back to {@code SCHEDULED}; if it is a trigger, its next fire time becomes the
   * result's, so the fire that ran does not run again after the trigger). A completed one-shot job
   * may be deleted, by the store's retention setting.
   *
   * @return the job as now stored, or empty if it was deleted (meanwhile, or by retention)
   */
  Optional<JobRecord> runFinished(RunResult result);

  /** The newest {@code limit} runs of a job, newest first. */
  List<RunRecord> history(String key, int limit);

  /**
   * Stored jobs this store cannot or will not read (a row no record maps to, or one that breaks
   * {@link JobRules#checkRecord(JobRecord)}), ordered by key. Such jobs are skipped by {@link #due}
   * and {@link #findAll}, and {@link #find} throws {@link dev.kairos.UnreadableJobException} for
   * them. A store that holds only what it was given (as the in-memory store does) has none: the
   * default.
   */
  default List<UnreadableJob> unreadable() {
    return List.of();
  }

  /** Releases what the store opened (a pool it created); never a user's own data source. */
  @Override
  default void close() {}
}
