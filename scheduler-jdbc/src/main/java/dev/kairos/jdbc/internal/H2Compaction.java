package dev.kairos.jdbc.internal;

import dev.kairos.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the embedded H2 file ({@code JdbcStore.h2(dir)}) proportional to its live data: at open,
 * before the pool starts, one connection reads how much of the file H2's MVStore still uses and,
 * when the file is larger than {@link #MIN_SIZE} and more than {@link #MAX_RATIO} times its live
 * content, runs {@code SHUTDOWN COMPACT} (H2 rewrites the live pages at the start of the file and
 * truncates it), then the pool opens the compacted file.
 *
 * <p>Why the file grows at all: the store's URL sets {@code WRITE_DELAY=0}, which stops H2's
 * background thread, the only one that rewrites sparse chunks while the database is open, and
 * {@code MAX_COMPACT_TIME=0}, so that close does not compact either (H2 2.3's time-limited
 * compaction at close is where its reported assertion failures come from). Every commit writes a
 * chunk; the space of dead chunks is reused, but a chunk that keeps a few live pages keeps its
 * whole block, and a process that is killed never gets to close; so the file grows with the number
 * of commits, not with the data. A full {@code SHUTDOWN COMPACT} on a single connection, with
 * nothing else open, is a different code path from the time-limited one, measured here under the
 * soak's SIGKILLs (docs/RELIABILITY.md).
 */
public final class H2Compaction {
  private static final Logger log = LoggerFactory.getLogger(H2Compaction.class);

  /** Files up to this size are never compacted at open: too small to matter. */
  public static final long MIN_SIZE = 4L * 1024 * 1024;

  /** A file more than this many times its live content is compacted at open. */
  public static final int MAX_RATIO = 3;

  private H2Compaction() {}

  /** What {@link #compactIfSparse} found and did. */
  public record Outcome(long before, long live, long after, long millis, boolean compacted) {}

  /**
   * Compacts the database at {@code url} (whose main file is {@code file}, {@code ...kairos.mv.db})
   * when it is large and mostly unused; does nothing if the file does not exist yet. A failure to
   * open or compact it is logged (WARN, naming the file) and leaves the file as it was for the pool
   * to open.
   *
   * @throws StoreException if the file's size cannot be read
   */
  public static Outcome compactIfSparse(String url, Path file) {
    long before = size(file);
    if (before <= MIN_SIZE) {
      return new Outcome(before, -1, before, 0, false);
    }
    long t0 = System.nanoTime();
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      long live = live(s, before);
      if (live * MAX_RATIO >= before) {
        log.debug("H2 file {}: {} MB, {} MB live: not compacted", file, mb(before), mb(live));
        return new Outcome(before, live, before, ms(t0), false);
      }
      s.execute("SHUTDOWN COMPACT"); // closes the database, and with it this connection
      long after = size(file);
      long took = ms(t0);
      log.info(
          "H2 file {}: {} MB with {} MB live, compacted to {} MB at open in {} ms",
          file,
          mb(before),
          mb(live),
          mb(after),
          took);
      return new Outcome(before, live, after, took, true);
    } catch (SQLException e) {
      // Not fatal: the pool opens the file as it is, and says so if it cannot (a read-only file is
      // then refused by the writability check with its own message).
      log.warn(
          "compacting the H2 file {} ({} MB) at open failed; opening it uncompacted: {}",
          file,
          mb(before),
          e.toString());
      return new Outcome(before, -1, size(file), ms(t0), false);
    }
  }

  /**
   * Bytes of the file in live pages, from H2's own figures: the part of the file in chunks ({@code
   * info.FILL_RATE}, %) times the live part of those chunks ({@code info.CHUNKS_FILL_RATE}, %).
   */
  private static long live(Statement s, long fileSize) throws SQLException {
    Map<String, String> info = new HashMap<>();
    try (ResultSet r =
        s.executeQuery(
            "SELECT SETTING_NAME, SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                + " WHERE SETTING_NAME IN ('info.FILL_RATE', 'info.CHUNKS_FILL_RATE')")) {
      while (r.next()) {
        info.put(r.getString(1), r.getString(2));
      }
    }
    String fill = info.get("info.FILL_RATE");
    String chunks = info.get("info.CHUNKS_FILL_RATE");
    if (fill == null || chunks == null) {
      return fileSize; // not an MVStore file, or H2 no longer reports it: never compact blindly
    }
    return fileSize * Integer.parseInt(fill.trim()) / 100 * Integer.parseInt(chunks.trim()) / 100;
  }

  private static long size(Path file) {
    try {
      return Files.exists(file) ? Files.size(file) : 0;
    } catch (java.io.IOException e) {
      throw new StoreException("reading the size of the H2 file " + file + " failed", e);
    }
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
  }
}
