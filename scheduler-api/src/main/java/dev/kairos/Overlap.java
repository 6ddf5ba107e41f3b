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
 * </table>
 *
 * <p>Dropped fires are reported to {@link SchedulerListener#overlapDropped} and logged. A fixed
 * delay never overlaps (its next fire is counted from the end of the run) and a one-shot has no
 * next fire, so the policy changes nothing for them. Kubernetes' {@code Allow} (concurrent runs of
 * one job) is not offered: a job's runs are serialized so that each write-back starts from the
 * state the previous one left. For the same reason {@link #replace()} starts the new fire only once
 * the interrupted run has returned and been written back.
 */
public sealed interface Overlap
    permits Overlap.Forbid, Overlap.BufferOne, Overlap.Skip, Overlap.Replace {

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
