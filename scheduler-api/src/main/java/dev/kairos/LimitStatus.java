package dev.kairos;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where one {@link ConcurrencyLimit} stands on this scheduler instance right now, as {@link
 * Scheduler#limits()} reports it: its configuration beside how many of its permits are held and how
 * many due fires wait for one. A snapshot: the counts may change as soon as it is taken.
 *
 * <p>In cluster mode the counts are this instance's only: runs of the limit's handlers on other
 * instances hold permits of the cluster's count too, but are not included here.
 *
 * @param name the limit's name ({@link ConcurrencyLimit#name()})
 * @param permits how many runs the limit allows at once, 1 or more ({@link
 *     ConcurrencyLimit#permits()})
 * @param handlers the handlers whose runs count against the limit, at least one, sorted and
 *     unmodifiable ({@link ConcurrencyLimit#handlers()})
 * @param running the permits held on this instance: runs in progress, backfill runs included, and
 *     fires just handed a freed permit that a worker is about to start; 0 or more, at most {@code
 *     permits}
 * @param waiting the due fires queued on this instance for a permit of the limit (they hold no
 *     worker); 0 or more
 */
public record LimitStatus(
    String name, int permits, Set<String> handlers, int running, int waiting) {

  /**
   * Checks the values and keeps an unmodifiable, sorted copy of the handlers.
   *
   * @param name the limit's name
   * @param permits how many runs the limit allows at once
   * @param handlers the handlers whose runs count against the limit
   * @param running the permits held on this instance
   * @param waiting the due fires waiting on this instance for a permit
   * @throws IllegalArgumentException naming the limit, the field and the value: a blank name, fewer
   *     than 1 permit, no handler or a blank one, a negative {@code running} or {@code waiting}
   */
  public LimitStatus {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("limit status: name must not be blank: '" + name + "'");
    }
    if (permits < 1) {
      throw new IllegalArgumentException(
          "limit status '" + name + "': permits must be at least 1, not " + permits);
    }
    if (handlers == null || handlers.isEmpty()) {
      throw new IllegalArgumentException("limit status '" + name + "': handlers must not be empty");
    }
    for (String h : handlers) {
      if (h == null || h.isBlank()) {
        throw new IllegalArgumentException(
            "limit status '" + name + "': handlers holds a blank name: '" + h + "'");
      }
    }
    if (running < 0) {
      throw new IllegalArgumentException(
          "limit status '" + name + "': running must not be negative, not " + running);
    }
    if (waiting < 0) {
      throw new IllegalArgumentException(
          "limit status '" + name + "': waiting must not be negative, not " + waiting);
    }
    handlers = Collections.unmodifiableSortedSet(new TreeSet<>(handlers));
  }
}
