package dev.kairos.spi;

import java.time.Instant;

/**
 * A position in the order (due time, key) in which a store hands out due jobs; loading resumes
 * strictly after it, in the store's order of keys. {@link #compareTo} orders keys as Java does,
 * which is the in-memory store's order, not necessarily a database's (see {@link JobStore#due}).
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
