package dev.kairos;

/**
 * A stored job cannot be read back (for example its row was edited by hand into something Kairos
 * does not know). Not transient: retrying does not help. The job is left as stored.
 */
public class UnreadableJobException extends StoreException {
  /**
   * An exception naming the job and the problem.
   *
   * @param message the job key and why it cannot be read
   */
  public UnreadableJobException(String message) {
    super(message);
  }
}
