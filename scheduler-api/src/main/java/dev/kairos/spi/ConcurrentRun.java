package dev.kairos.spi;

import dev.kairos.JobState;
import java.time.Instant;
import java.util.Objects;

/**
 * A run of a job under {@link dev.kairos.Overlap#allow(int)} about to start, as {@link
 * JobStore#startConcurrentRun} writes it: the fire, and the schedule state the job moves to at
 * once.
 *
 * @param key the job's key
 * @param expectedVersion the version the fire was decided from (the claim's, in cluster mode)
 * @param fire the scheduled fire time the run stands for
 * @param start when the run starts
 * @param instance the instance that runs it
 * @param maxRuns the most runs of the job in progress at once (its {@code allow(n)})
 * @param next the job's schedule state from now on: state, next fire, due time, kind
 * @param cluster cluster mode: the start stands in for a claim, so the job must be due by the
 *     store's clock and {@code limit}, if any, is judged against the whole cluster's runs
 * @param limit the concurrency limit of the job's handler, or null
 */
public record ConcurrentRun(
    String key,
    long expectedVersion,
    Instant fire,
    Instant start,
    String instance,
    int maxRuns,
    Next next,
    boolean cluster,
    dev.kairos.ConcurrencyLimit limit) {

  /**
   * The schedule state a job moves to when a concurrent run starts.
   *
   * @param state {@link JobState#SCHEDULED}, {@link JobState#COMPLETE} if no fire is left, or
   *     {@link JobState#PAUSED} for the run of a paused job's trigger (it stays paused)
   * @param nextFireTime the next timetable fire, or null when complete
   * @param dueTime when the next fire is due (after jitter), or null when complete or paused
   * @param dueKind why it is due
   */
  public record Next(JobState state, Instant nextFireTime, Instant dueTime, FireKind dueKind) {
    /**
     * Checks the state.
     *
     * @param state {@link JobState#SCHEDULED}, {@link JobState#COMPLETE} if no fire is left, or
     *     {@link JobState#PAUSED} for the run of a paused job's trigger (it stays paused)
     * @param nextFireTime the next timetable fire, or null when complete
     * @param dueTime when the next fire is due (after jitter), or null when complete or paused
     * @param dueKind why it is due
     * @throws IllegalArgumentException if the state is RUNNING, a SCHEDULED state has no due time,
     *     or a PAUSED one has one
     */
    public Next {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(dueKind, "dueKind");
      if (state == JobState.RUNNING) {
        throw new IllegalArgumentException(
            "a concurrent run leaves SCHEDULED, PAUSED or COMPLETE: " + state);
      }
      if (state == JobState.SCHEDULED && dueTime == null) {
        throw new IllegalArgumentException("a SCHEDULED job needs a due time");
      }
      if (state == JobState.PAUSED && dueTime != null) {
        throw new IllegalArgumentException("a PAUSED job has no due time: " + dueTime);
      }
    }
  }

  /**
   * Checks the required parts.
   *
   * @param key the job's key
   * @param expectedVersion the version the fire was decided from (the claim's, in cluster mode)
   * @param fire the scheduled fire time the run stands for
   * @param start when the run starts
   * @param instance the instance that runs it
   * @param maxRuns the most runs of the job in progress at once (its {@code allow(n)})
   * @param next the job's schedule state from now on: state, next fire, due time, kind
   * @param cluster cluster mode: the start stands in for a claim, so the job must be due by the
   *     store's clock and {@code limit}, if any, is judged against the whole cluster's runs
   * @param limit the concurrency limit of the job's handler, or null
   * @throws NullPointerException naming a missing part
   * @throws IllegalArgumentException if {@code maxRuns < 1}
   */
  public ConcurrentRun {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fire, "fire");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(instance, "instance");
    Objects.requireNonNull(next, "next");
    if (maxRuns < 1) {
      throw new IllegalArgumentException(
          "job '" + key + "': maxRuns must be at least 1: " + maxRuns);
    }
  }

  /**
   * The job as this start leaves it: the schedule state {@link #next()}, attempt 1, the fire as its
   * last scheduled fire, the start as its last start, one more run, version {@code
   * expectedVersion() + 1}; definition, last end, outcome, error and failure count as they were.
   *
   * @param r the job as stored at {@link #expectedVersion()}
   * @return the job after the start
   */
  public JobRecord applyTo(JobRecord r) {
    return new JobRecord(
        r.spec(),
        new ScheduleState(next.state(), next.nextFireTime(), next.dueTime(), next.dueKind(), 1),
        r.stats().started(fire, start),
        expectedVersion + 1);
  }

  /**
   * What {@link JobStore#startConcurrentRun} answers.
   *
   * @param outcome whether the run was recorded, or why not
   * @param started the job as now stored, present exactly when {@code outcome} is STARTED
   */
  public record Answer(Outcome outcome, java.util.Optional<JobRecord> started) {
    /**
     * Checks that the record is present exactly for a start.
     *
     * @param outcome whether the run was recorded, or why not
     * @param started the job as now stored, present exactly when {@code outcome} is STARTED
     * @throws IllegalArgumentException if it is not
     */
    public Answer {
      Objects.requireNonNull(outcome, "outcome");
      Objects.requireNonNull(started, "started");
      if ((outcome == Outcome.STARTED) != started.isPresent()) {
        throw new IllegalArgumentException(outcome + " with record " + started);
      }
    }

    /**
     * A refusal: nothing was changed.
     *
     * @param outcome why (not STARTED)
     * @return the answer
     */
    public static Answer refused(Outcome outcome) {
      return new Answer(outcome, java.util.Optional.empty());
    }
  }

  /** Whether a concurrent run was recorded, or why not; a refusal changes nothing. */
  public enum Outcome {
    /** Recorded: the run may start. */
    STARTED,
    /** {@code maxRuns} runs of the job are recorded already. */
    FULL,
    /** Cluster mode: the concurrency limit is full in the cluster. */
    LIMIT_FULL,
    /** Cluster mode: the job is not yet due by the store's clock. */
    NOT_DUE,
    /** The job is gone or not at the expected version (changed, or another instance started it). */
    CHANGED
  }
}
