package dev.kairos.spi;

import java.time.Instant;

/**
 * A position in the order (due time, key) in which a store hands out due jobs; loading resumes
 * strictly after it.
 *
 * @param dueTime due time of the last job handed out
 * @param key key of the last job handed out
 */
public record WindowCursor(Instant dueTime, String key) implements Comparable<WindowCursor> {
  @Override
  public int compareTo(WindowCursor o) {
    int c = dueTime.compareTo(o.dueTime);
    return c != 0 ? c : key.compareTo(o.key);
  }
}
