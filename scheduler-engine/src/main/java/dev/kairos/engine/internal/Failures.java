package dev.kairos.engine.internal;

import dev.kairos.spi.JobRules;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Throwables from user code (a handler's failure, a listener's) as a logger can print them. A
 * logger prints a throwable's {@code toString()} and those of its causes and suppressed throwables;
 * when one of them throws (a message formatted lazily from a null field) the logging call itself
 * would throw, in the middle of the engine's bookkeeping of a run.
 */
final class Failures {
  private Failures() {}

  /**
   * {@code t} itself if every throwable a logger prints for it can be printed, else a stand-in
   * whose message is {@link JobRules#errorText} of {@code t}, with {@code t}'s stack trace.
   *
   * @param t a throwable from user code, or null
   * @return what to hand to the logger
   */
  static Throwable loggable(Throwable t) {
    if (t == null || printable(t, Collections.newSetFromMap(new IdentityHashMap<>()))) {
      return t;
    }
    Throwable standIn = new Unprintable(JobRules.errorText(t));
    standIn.setStackTrace(t.getStackTrace());
    return standIn;
  }

  private static boolean printable(Throwable t, Set<Throwable> seen) {
    if (t == null || !seen.add(t)) {
      return true; // the end of the chain, or a cycle (which printStackTrace handles)
    }
    try {
      if (t.toString() == null) {
        return false;
      }
      for (Throwable s : t.getSuppressed()) {
        if (!printable(s, seen)) {
          return false;
        }
      }
      return printable(t.getCause(), seen);
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      return false;
    }
  }

  /** Stands in for a throwable that cannot be printed: prints as its error text alone. */
  private static final class Unprintable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unprintable(String text) {
      super(text);
    }

    @Override
    public String toString() {
      return getMessage();
    }
  }
}
