package dev.kairos;

/** The job store failed (for example, the database is unreachable). Nothing was changed. */
public class StoreException extends KairosException {
  /**
   * An exception with a message and a cause.
   *
   * @param message what went wrong, naming the store
   * @param cause the underlying failure
   */
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * An exception with a message.
   *
   * @param message what went wrong, naming the store
   */
  public StoreException(String message) {
    super(message);
  }
}
