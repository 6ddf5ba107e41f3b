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
 */
public record BackfillSlot(String key, Instant fireTime, State state, String owner) {

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
   * @throws NullPointerException naming the missing component
   */
  public BackfillSlot {
    Objects.requireNonNull(key, "key must not be null");
    Objects.requireNonNull(fireTime, "fireTime must not be null");
    Objects.requireNonNull(state, "state must not be null");
  }
}
