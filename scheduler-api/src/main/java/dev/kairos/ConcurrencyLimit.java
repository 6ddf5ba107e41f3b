package dev.kairos;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

/**
 * At most {@code permits} runs at once of jobs whose handler is one of {@code handlers}; in cluster
 * mode, counted across every instance. A fire due while the limit is full waits (it is neither run
 * nor dropped) and starts when a run of the limit's handlers ends, the earliest due first; its
 * misfire policy is judged when it starts. Built by {@link #of} for one handler and {@link #group}
 * for several sharing the permits.
 *
 * @param name the limit's name: the handler's for {@link #of}, the group's for {@link #group}; in
 *     cluster mode, instances agree on a limit by its name
 * @param permits how many runs may be in progress at once, 1 or more
 * @param handlers the handlers whose runs count against the limit, at least one
 */
public record ConcurrencyLimit(String name, int permits, Set<String> handlers) {

  /** Longest name, as for handler names. */
  public static final int MAX_NAME_LENGTH = 200;

  /**
   * Checks the values and keeps an unmodifiable, sorted copy of the handlers.
   *
   * @param name the limit's name: the handler's for {@link #of}, the group's for {@link #group}; in
   *     cluster mode, instances agree on a limit by its name
   * @param permits how many runs may be in progress at once, 1 or more
   * @param handlers the handlers whose runs count against the limit, at least one
   * @throws IllegalArgumentException naming the limit and the value, if {@code permits < 1}, the
   *     name is blank or too long, or the handlers are empty or blank
   */
  public ConcurrencyLimit {
    if (name == null || name.isBlank() || name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "concurrency limit name must be 1 to 200 characters, not blank: '" + name + "'");
    }
    if (permits < 1) {
      throw new IllegalArgumentException(
          "concurrency limit '" + name + "' must allow at least 1 run, not " + permits);
    }
    if (handlers == null || handlers.isEmpty()) {
      throw new IllegalArgumentException("concurrency limit '" + name + "' names no handler");
    }
    for (String h : handlers) {
      if (h == null || h.isBlank()) {
        throw new IllegalArgumentException(
            "concurrency limit '" + name + "' names a blank handler: '" + h + "'");
      }
    }
    handlers = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(handlers));
  }

  /**
   * At most {@code permits} runs at once of jobs with handler {@code handler}; the limit is named
   * after the handler.
   *
   * @param handler the handler's name
   * @param permits runs at once, 1 or more
   * @return the limit
   */
  public static ConcurrencyLimit of(String handler, int permits) {
    return new ConcurrencyLimit(handler, permits, Set.of(requireHandler(handler)));
  }

  /**
   * At most {@code permits} runs at once of jobs with any of {@code handlers}, together.
   *
   * @param name the group's name
   * @param permits runs at once, 1 or more
   * @param handlers the handlers sharing the permits
   * @return the limit
   */
  public static ConcurrencyLimit group(String name, int permits, String... handlers) {
    if (handlers == null || handlers.length == 0) {
      throw new IllegalArgumentException("concurrency limit '" + name + "' names no handler");
    }
    for (String h : handlers) {
      requireHandler(h);
    }
    Set<String> set = new TreeSet<>(Arrays.asList(handlers));
    if (set.size() != handlers.length) {
      throw new IllegalArgumentException(
          "concurrency limit '" + name + "' names a handler twice: " + Arrays.toString(handlers));
    }
    return new ConcurrencyLimit(name, permits, set);
  }

  private static String requireHandler(String handler) {
    if (handler == null) {
      throw new NullPointerException("handler must not be null");
    }
    return handler;
  }
}
