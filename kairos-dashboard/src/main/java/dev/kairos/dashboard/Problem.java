package dev.kairos.dashboard;

/** A request the dashboard refuses: an HTTP status and one clear line saying why. */
final class Problem extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The HTTP status to answer with. */
  final int status;

  Problem(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }
}
