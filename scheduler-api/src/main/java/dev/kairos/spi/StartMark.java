package dev.kairos.spi;

import java.util.Objects;

/**
 * A job about to run, for {@link JobStore#runsStarted}: the store sets the row's state to {@code
 * RUNNING} only if it is {@code SCHEDULED} at this version, so a mark never lands on a definition
 * or schedule state the engine has not seen.
 *
 * @param key the job
 * @param version the stored version the engine holds and will run from
 */
public record StartMark(String key, long version) {
  /**
   * Refuses a null key.
   *
   * @param key the job
   * @param version the stored version the engine holds
   */
  public StartMark {
    Objects.requireNonNull(key, "key must not be null");
  }
}
