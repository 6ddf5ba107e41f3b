package dev.kairos.spi;

import dev.kairos.RunOutcome;
import java.time.Instant;

/**
 * The run statistics of a stored job: its last run and its counts. They change with every run but
 * never change the job's version.
 *
 * @param lastScheduledFireTime scheduled time of the last fire that ran, or null
 * @param lastStart start of the last run, or null
 * @param lastEnd end of the last run, or null
 * @param lastOutcome outcome of the last run, or null
 * @param lastError the last failure as {@link JobRules#storableError} leaves it (null after a
 *     success)
 * @param runCount runs so far
 * @param failureCount failed runs so far
 */
public record RunStats(
    Instant lastScheduledFireTime,
    Instant lastStart,
    Instant lastEnd,
    RunOutcome lastOutcome,
    String lastError,
    long runCount,
    long failureCount) {

  /** The statistics of a job that never ran. */
  public static final RunStats NONE = new RunStats(null, null, null, null, null, 0, 0);

  /**
   * These statistics after a run ended: it is the last run, counted, and counted as failed unless
   * it succeeded.
   *
   * @param fire the fire that ran
   * @param start its start
   * @param end its end
   * @param outcome how it ended
   * @param error its failure message (dropped after a success)
   * @return the new statistics
   */
  public RunStats ended(
      Instant fire, Instant start, Instant end, RunOutcome outcome, String error) {
    boolean failed = outcome != RunOutcome.SUCCESS;
    return new RunStats(
        fire,
        start,
        end,
        outcome,
        failed ? error : null,
        runCount + 1,
        failureCount + (failed ? 1 : 0));
  }

  /**
   * These statistics after a run started that ends unrecorded here (a concurrent run under {@link
   * dev.kairos.Overlap#allow(int)}: its end goes to history only): the fire and start are the last
   * ones, the run is counted; the last end, outcome and error stay as they were.
   *
   * @param fire the fire that starts
   * @param start its start
   * @return the new statistics
   */
  public RunStats started(Instant fire, Instant start) {
    return new RunStats(fire, start, lastEnd, lastOutcome, lastError, runCount + 1, failureCount);
  }

  /**
   * True if the last start recorded is after the last end (or no end is recorded): a run was marked
   * started and its end was never written back, so it is going, or a crash cut it off. A run that
   * starts at the very instant the one before it ended does not count.
   *
   * @return whether a started run has no recorded end
   */
  public boolean startNotEnded() {
    return lastStart != null && (lastEnd == null || lastStart.isAfter(lastEnd));
  }

  /**
   * These statistics with another last start, the rest kept (a run marked started, or a fire
   * claimed, before its end is known).
   *
   * @param start the start
   * @return a copy with that last start
   */
  public RunStats withLastStart(Instant start) {
    return new RunStats(
        lastScheduledFireTime, start, lastEnd, lastOutcome, lastError, runCount, failureCount);
  }

  /**
   * These statistics with another last error, the rest kept (a store trims a long message so).
   *
   * @param error the message, or null
   * @return a copy with that error
   */
  public RunStats withLastError(String error) {
    return new RunStats(
        lastScheduledFireTime, lastStart, lastEnd, lastOutcome, error, runCount, failureCount);
  }
}
