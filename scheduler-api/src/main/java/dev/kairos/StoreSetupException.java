package dev.kairos;

/**
 * The store cannot open as it is set up, and waiting will not change that: no JDBC driver on the
 * class path accepts its URL, or its tables are newer than this Kairos. {@code start()} fails with
 * it at once instead of retrying until the startup timeout, as it does for a database that is down
 * or restarting.
 */
public class StoreSetupException extends StoreException {
  /**
   * An exception with a message and a cause.
   *
   * @param message what is wrong and how to mend it, naming the store
   * @param cause the underlying failure
   */
  public StoreSetupException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * An exception with a message.
   *
   * @param message what is wrong and how to mend it, naming the store
   */
  public StoreSetupException(String message) {
    super(message);
  }
}
