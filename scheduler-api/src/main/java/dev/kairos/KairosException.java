package dev.kairos;

/** The root of the exceptions Kairos throws, besides argument errors. */
public class KairosException extends RuntimeException {
  /**
   * An exception with a message.
   *
   * @param message what went wrong
   */
  public KairosException(String message) {
    super(message);
  }

  /**
   * An exception with a message and a cause.
   *
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public KairosException(String message, Throwable cause) {
    super(message, cause);
  }
}
