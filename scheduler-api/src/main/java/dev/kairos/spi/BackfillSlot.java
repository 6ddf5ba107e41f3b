package dev.kairos.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * One slot queued by {@link dev.kairos.Scheduler#backfill}: a past fire of a job, to be run once
 * outside its schedule. A store keeps one slot per (key, fire time), whatever its state, so that
 * queueing the same slot again does nothing.
 *
 * @param key the job's key
 * @param fireTime the slot: the scheduled fire time the run stands for
 * @param state where the slot is
 * @param owner the instance running it while {@link State#RUNNING}; else null
 * @param kind a backfill slot, or the record of a concurrent run in progress
 */
public record BackfillSlot(String key, Instant fireTime, State state, String owner, Kind kind) {

  /** What a slot stands for. */
  public enum Kind {
    /** A slot queued by {@link dev.kairos.Scheduler#backfill}: run with {@code backfill()} true. */
    BACKFILL,
    /**
     * A run of a job under {@link dev.kairos.Overlap#allow(int)}, in progress ({@link
     * State#RUNNING}) or interrupted by a crash and waiting to run again ({@link State#PENDING},
     * then run with {@code recovery()} true). Deleted when the run is written back; never {@link
     * State#DONE}.
     */
    RUN
  }

  /**
   * A backfill slot ({@link Kind#BACKFILL}).
   *
   * @param key the job's key
   * @param fireTime the slot
   * @param state where the slot is
   * @param owner the instance running it while {@link State#RUNNING}; else null
   */
  public BackfillSlot(String key, Instant fireTime, State state, String owner) {
    this(key, fireTime, state, owner, Kind.BACKFILL);
  }

  /** Where a slot is. */
  public enum State {
    /** Queued, not yet claimed. */
    PENDING,
    /** Claimed by an instance, whose run has not been written back. */
    RUNNING,
    /** Run and written back; kept, so that the slot is never queued again. */
    DONE
  }

  /**
   * A slot, checked: key, fire time and state are required.
   *
   * @param key the job's key
   * @param fireTime the slot
   * @param state where the slot is
   * @param owner the instance running it while {@link State#RUNNING}; else null
   * @param kind a backfill slot, or the record of a concurrent run in progress
   * @throws NullPointerException naming the missing component
   */
  public BackfillSlot {
    Objects.requireNonNull(key, "key must not be null");
    Objects.requireNonNull(fireTime, "fireTime must not be null");
    Objects.requireNonNull(state, "state must not be null");
    Objects.requireNonNull(kind, "kind must not be null");
  }
}
