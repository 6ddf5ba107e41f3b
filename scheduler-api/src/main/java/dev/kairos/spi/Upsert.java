package dev.kairos.spi;

/**
 * The result of {@link JobStore#upsert}.
 *
 * @param record the stored job after the call
 * @param change what the call did
 */
public record Upsert(JobRecord record, Change change) {
  /** What an upsert did. */
  public enum Change {
    /** No job had the key; it was inserted. */
    CREATED,
    /** The stored definition was equal; nothing changed. */
    UNCHANGED,
    /** The definition differed; it and the schedule state were replaced, statistics kept. */
    UPDATED
  }
}
