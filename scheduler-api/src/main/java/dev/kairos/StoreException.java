package dev.kairos;

/** The job store failed (for example, the database is unreachable). Nothing was changed. */
public class StoreException extends KairosException {
  /** An exception with a message and a cause. */
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** An exception with a message. */
  public StoreException(String message) {
    super(message);
  }
}
