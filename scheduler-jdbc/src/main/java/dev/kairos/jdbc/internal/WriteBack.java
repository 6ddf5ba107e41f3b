package dev.kairos.jdbc.internal;

import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.RunResult;
import java.util.Objects;

/** The rules of a run's write-back, as pure functions of the stored record and the result. */
public final class WriteBack {
  private WriteBack() {}

  /**
   * The record after the run ({@link RunResult#applyTo}), with its error trimmed for the column.
   *
   * @param leasedToOther true if the row's claim belongs to an instance other than the result's
   */
  public static JobRecord apply(JobRecord r, RunResult x, boolean leasedToOther) {
    return trimmed(x.applyTo(r, leasedToOther));
  }

  /**
   * True if this write-back was applied already: the engine retries one whose commit succeeded but
   * whose acknowledgement was lost with the connection. Then the stored last run is this run, and
   * the version has moved on from the one the run was taken at (a later run is always taken at the
   * stored version, so it cannot look like a repeat).
   */
  public static boolean isRepeat(JobRecord r, RunResult x) {
    return r.version() != x.expectedVersion()
        && Objects.equals(x.scheduledFireTime(), r.lastScheduledFireTime())
        && Objects.equals(x.start(), r.lastStart())
        && Objects.equals(x.end(), r.lastEnd())
        && x.outcome() == r.lastOutcome();
  }

  /**
   * Whether the write-back leaves the row's claim (owner and lease) as it is: only when the run was
   * not current and another instance holds the claim. Otherwise the claim ends with the run.
   */
  public static boolean keepsClaim(JobRecord r, RunResult x, boolean leasedToOther) {
    return r.version() != x.expectedVersion() && leasedToOther;
  }

  /** The record as the store keeps it: its error made storable ({@link JobRules#storableError}). */
  public static JobRecord trimmed(JobRecord r) {
    String error = JobRules.storableError(r.lastError());
    if (Objects.equals(error, r.lastError())) {
      return r;
    }
    return r.withStats(r.stats().withLastError(error));
  }
}
