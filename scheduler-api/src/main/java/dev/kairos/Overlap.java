package dev.kairos;

/**
 * What a job does with fires that come due while its previous run is still going. A job never runs
 * twice at once, whatever its overlap policy: the policy decides only which of the fires that came
 * due during a run are kept for after it.
 *
 * <p>A fire <em>came due during a run</em> when its scheduled time is after the run's start and at
 * or before its end. Fires that were already due when the run started (a backlog after downtime or
 * busy workers) are the {@link Misfire misfire policy}'s business, not the overlap policy's.
 *
 * <table>
 *   <caption>Overlap policies</caption>
 *   <tr><th>policy</th><th>fires that came due during the run</th><th>after the run</th></tr>
 *   <tr><td>{@link #forbid()} (default)</td><td>all kept</td><td>the oldest runs next; the
 *       misfire policy judges how late it is</td></tr>
 *   <tr><td>{@link #bufferOne()}</td><td>the newest kept, older ones dropped and counted</td>
 *       <td>the newest runs next, judged by the misfire policy</td></tr>
 *   <tr><td>{@link #skip()}</td><td>all dropped and counted</td><td>the first fire after the
 *       run's end</td></tr>
 *   <tr><td>{@link #replace()}</td><td>the first one interrupts the run (its worker thread); the
 *       newest is kept, older ones dropped and counted</td><td>the interrupted run is recorded
 *       {@link RunOutcome#INTERRUPTED}, not retried; the newest fire runs next</td></tr>
 *   <tr><td>{@link #allow(int) allow(n)}</td><td>each starts at once beside the running ones, up to
 *       n runs of the job at a time; beyond n a fire waits as under {@code forbid()}</td><td>nothing
 *       is held back: each fire runs once, in its own run</td></tr>
 * </table>
 *
 * <p>Dropped fires are reported to {@link SchedulerListener#overlapDropped} and logged. A fixed
 * delay never overlaps (its next fire is counted from the end of the run) and a one-shot has no
 * next fire, so the policy changes nothing for them. Under every policy but {@link #allow(int)} a
 * job's runs are serialized, each write-back starting from the state the previous one left; for
 * that reason {@link #replace()} starts the new fire only once the interrupted run has returned and
 * been written back. {@link #allow(int)} writes the job's schedule forward when a run
 * <em>starts</em> instead (see there).
 */
public sealed interface Overlap
    permits Overlap.Forbid, Overlap.BufferOne, Overlap.Skip, Overlap.Replace, Overlap.Allow {

  /** The most concurrent runs {@link #allow(int)} accepts. */
  int MAX_CONCURRENT_RUNS = 1000;

  /**
   * Fires that come due during a run wait for it; the misfire policy judges them when they start.
   * Kubernetes' {@code Forbid}, Temporal's {@code BufferAll}. The default.
   *
   * @return the forbid policy
   */
  static Overlap forbid() {
    return Forbid.INSTANCE;
  }

  /**
   * Of the fires that come due during a run, only the newest waits for it; the others are dropped
   * and counted. Temporal's {@code BufferOne}, keeping the most recent fire.
   *
   * @return the buffer-one policy
   */
  static Overlap bufferOne() {
    return BufferOne.INSTANCE;
  }

  /**
   * Fires that come due during a run are dropped and counted; after the run the job waits for its
   * first fire after the run's end. Temporal's {@code Skip}.
   *
   * @return the skip policy
   */
  static Overlap skip() {
    return Skip.INSTANCE;
  }

  /**
   * The first fire that comes due during a run interrupts it ({@link Thread#interrupt()} on the
   * worker running it); once the handler has returned, the run is recorded {@link
   * RunOutcome#INTERRUPTED} with "replaced by …" as its error and is not retried, and the newest
   * fire that came due runs next (older ones are dropped and counted, as under {@link
   * #bufferOne()}). A handler that ignores interrupts is not cut short: its run goes on, and the
   * newest fire waits for it. Kubernetes' {@code Replace}, Temporal's {@code CancelOther}.
   *
   * @return the replace policy
   */
  static Overlap replace() {
    return Replace.INSTANCE;
  }

  /**
   * Up to {@code n} runs of the job at once: a fire that comes due during a run starts beside it
   * (Kubernetes' {@code Allow}, Temporal's {@code AllowAll}, bounded). Each fire still runs once.
   * With {@code n} runs going, the next fire waits for one of them to end and is then judged by the
   * misfire policy, as under {@link #forbid()}; {@code allow(1)} is {@code forbid()}.
   *
   * <p>Write-back rules: when a run starts, the job's schedule is written forward in the store at
   * once (its next fire, the run counted, the start as its last start), together with a record of
   * the run in progress; when the run ends, only its history entry is written and its record of
   * progress deleted. So concurrent runs never write the job's schedule state over each other, and
   * a change made during runs (pause, reschedule, unschedule) is never undone by one. The job's
   * {@link JobInfo#lastOutcome()} and failure count are not updated by these runs (they end in any
   * order): read each run's outcome in the history. A run interrupted by a crash or by {@code
   * close()} is run again from its record of progress, with {@link JobContext#recovery()} true
   * (after a crash: at the next start of a single instance, or by a live instance once the crashed
   * one's lease has lapsed).
   *
   * <p>Only fixed-rate and cron jobs overlap; a retry policy cannot be combined with it ({@code
   * schedule} refuses: a failed run's retry would need a run of its own), and the store must
   * support it ({@link dev.kairos.spi.JobStore#supportsConcurrentRuns()}: the in-memory and JDBC
   * stores do).
   *
   * @param n the most runs of the job at once, 1 to {@value #MAX_CONCURRENT_RUNS}
   * @return the policy
   * @throws IllegalArgumentException if {@code n} is out of range, naming it
   */
  static Overlap allow(int n) {
    return new Allow(n);
  }

  /**
   * See {@link Overlap#allow(int)}.
   *
   * @param runs the most runs of the job at once
   */
  record Allow(int runs) implements Overlap {
    /**
     * Checks the bound.
     *
     * @param runs the most runs of the job at once
     * @throws IllegalArgumentException if {@code runs} is not 1 to {@value #MAX_CONCURRENT_RUNS}
     */
    public Allow {
      if (runs < 1 || runs > MAX_CONCURRENT_RUNS) {
        throw new IllegalArgumentException(
            "overlap allow(n): n must be 1 to " + MAX_CONCURRENT_RUNS + ", was " + runs);
      }
    }

    @Override
    public String toString() {
      return "allow(" + runs + ")";
    }

    /**
     * Parses {@code allow(n)}, as {@link #toString()} writes it.
     *
     * @param text the text
     * @return the policy, or empty if {@code text} is not of that form
     * @throws IllegalArgumentException if it is of that form but n is out of range
     */
    public static java.util.Optional<Allow> parse(String text) {
      if (text == null || !text.startsWith("allow(") || !text.endsWith(")")) {
        return java.util.Optional.empty();
      }
      String n = text.substring(6, text.length() - 1);
      if (n.isEmpty() || n.length() > 9 || !n.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of(new Allow(Integer.parseInt(n)));
    }
  }

  /** See {@link Overlap#forbid()}. */
  enum Forbid implements Overlap {
    /** The only value. */
    INSTANCE;

    @Override
    public String toString() {
      return "forbid";
    }
  }

  /** See {@link Overlap#bufferOne()}. */
  enum BufferOne implements Overlap {
    /** The only value. */
    INSTANCE;

    @Override
    public String toString() {
      return "bufferOne";
    }
  }

  /** See {@link Overlap#skip()}. */
  enum Skip implements Overlap {
    /** The only value. */
    INSTANCE;

    @Override
    public String toString() {
      return "skip";
    }
  }

  /** See {@link Overlap#replace()}. */
  enum Replace implements Overlap {
    /** The only value. */
    INSTANCE;

    @Override
    public String toString() {
      return "replace";
    }
  }
}
