package dev.kairos;

import java.time.Instant;
import java.util.Optional;

/** What one run of a job is: which job, which fire, which attempt. Handed to {@link Job#run}. */
public interface JobContext {
  /**
   * The job's unique key.
   *
   * @return the key
   */
  String key();

  /**
   * The name of the handler that runs the job.
   *
   * @return the handler name
   */
  String handler();

  /**
   * The data the job was scheduled with (for example JSON), if any.
   *
   * @return the data, or empty if the job has none
   */
  Optional<String> data();

  /**
   * The time of this fire on the job's timetable (for a retry: the fire being retried): the fire's
   * identity. With {@link JobSpec#jitter(java.time.Duration) jitter} it stays this unjittered time;
   * the run starts at it plus the fire's offset.
   *
   * @return the scheduled fire time
   */
  Instant scheduledFireTime();

  /**
   * When this run actually started, by the scheduler's clock; in cluster mode, when this instance's
   * claim of the fire was committed, by the database's clock (the handler is called moments later).
   *
   * @return the start of this run
   */
  Instant actualStart();

  /**
   * 1 for the first attempt of a fire, 2 for its first retry, and so on.
   *
   * @return the attempt number, from 1
   */
  int attempt();

  /**
   * How many missed fires this run stands for: 0 for a fire that started within its misfire
   * threshold; 1 for each fire made up by {@link Misfire#catchUp()}; the number of fires it
   * replaces for {@link Misfire#fireOnce()}.
   *
   * @return the number of missed fires, 0 or more
   */
  int missedFires();

  /**
   * True when this run repeats a fire whose earlier run was interrupted by a crash or the loss of
   * its instance (at-least-once delivery).
   *
   * @return whether this run is a recovery
   */
  boolean recovery();

  /**
   * True when this run was queued by {@link Scheduler#backfill}: it re-runs a past slot of the
   * job's timetable ({@link #scheduledFireTime()}), outside the job's schedule, which it does not
   * move.
   *
   * @return whether this run is a backfill run; false by default
   */
  default boolean backfill() {
    return false;
  }
}
