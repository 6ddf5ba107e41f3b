package dev.kairos;

/** The root of the exceptions Kairos throws, besides argument errors. */
public class KairosException extends RuntimeException {
  /** An exception with a message. */
  public KairosException(String message) {
    super(message);
  }

  /** An exception with a message and a cause. */
  public KairosException(String message, Throwable cause) {
    super(message, cause);
  }
}
