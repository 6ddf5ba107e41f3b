package dev.kairos.jdbc.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives back the commits H2 would drop when it reopens an embedded file ({@code JdbcStore.h2(dir)})
 * whose store header names a chunk that a later chunk has overwritten, as a SIGKILL can leave it.
 *
 * <p>Why: H2's MVStore writes each commit as a new chunk and names the newest chunk in the file's
 * header only now and then (when a chunk is not where the previous one predicted, or every 20
 * versions). With {@code RETENTION_TIME=0} the blocks of a chunk no longer in use are reused at
 * once, those of the chunk the header names too, and between writing such a chunk and rewriting the
 * header (measured: the header's chunk was not at its block in 1.3 % of 1 ms samples of the soak's
 * file) a kill leaves a header that points at another chunk. H2 then opens the chunk at the end of
 * the file and what follows it, and drops the newer ones: the soaks saw answered pauses and
 * unschedules of the last 20–45 ms undone (docs/RELIABILITY.md, stops 49 and 64). The chunks are
 * still in the file, and H2's recovery mode, which finds the newest complete chunk by scanning,
 * reads them.
 *
 * <p>So at open, before the pool (and {@link H2Compaction}, which would make the loss permanent): a
 * file closed cleanly (its header says so) is left alone after one read-only look; otherwise the
 * version H2 would open is compared with the newest one recovery mode finds, and when that is newer
 * the file is opened once in recovery mode and closed, which writes a header naming the newest
 * chunk (logged at WARN with both versions). A chunk written whole whose commit had not returned
 * when the process died comes back too: its caller never had an answer, so either outcome is one a
 * crash may give. The check takes one or two read-only opens of the file's header and newest chunk.
 */
public final class H2HeaderRepair {
  private static final Logger log = LoggerFactory.getLogger(H2HeaderRepair.class);

  private H2HeaderRepair() {}

  /**
   * What {@link #repairIfStale} found and did: the version a plain open would read, the newest one
   * in the file ({@code -1} when not looked for: no file, or a clean one), whether the header was
   * rewritten.
   */
  public record Outcome(long opened, long newest, boolean repaired) {}

  /**
   * Rewrites the header of {@code file} ({@code ...kairos.mv.db}) to name its newest chunk when a
   * plain open would read an older one; does nothing if the file does not exist or was closed
   * cleanly. A file that cannot be looked at is left as it is for the pool to open, which then
   * reports what is wrong: one in use by another process silently, any other failure logged at WARN
   * here.
   */
  public static Outcome repairIfStale(Path file) {
    if (!Files.exists(file)) {
      return new Outcome(-1, -1, false);
    }
    String name = file.toString();
    try {
      long opened;
      MVStore plain = new MVStore.Builder().fileName(name).readOnly().open();
      try {
        if (plain.getFileStore().getStoreHeader().containsKey("clean")) {
          return new Outcome(plain.getCurrentVersion(), -1, false);
        }
        opened = plain.getCurrentVersion();
      } finally {
        plain.closeImmediately();
      }
      long newest;
      MVStore scan = new MVStore.Builder().fileName(name).readOnly().recoveryMode().open();
      try {
        newest = scan.getCurrentVersion();
      } finally {
        scan.closeImmediately();
      }
      if (newest <= opened) {
        return new Outcome(opened, newest, false);
      }
      // Opened for writing in recovery mode: H2 takes the newest chunk, and close() writes a
      // header that names it. Nothing else is written (no compaction, no auto-commit).
      new MVStore.Builder()
          .fileName(name)
          .recoveryMode()
          .autoCommitDisabled()
          .autoCompactFillRate(0)
          .open()
          .close(0);
      log.warn(
          "H2 file {}: a plain open would read version {}, but the file holds whole chunks up to"
              + " version {}: the process was killed while H2 wrote, and the file's header did not"
              + " lead to them; the header now names the newest chunk, so no commit is dropped",
          file,
          opened,
          newest);
      return new Outcome(opened, newest, true);
    } catch (MVStoreException e) {
      if (e.getErrorCode() == DataUtils.ERROR_FILE_LOCKED) {
        // Another process has the file open: the pool's open says so, naming the cause.
        log.debug("H2 file {} is locked; its header is not checked", file);
        return new Outcome(-1, -1, false);
      }
      return failed(file, e);
    } catch (RuntimeException e) {
      return failed(file, e);
    }
  }

  private static Outcome failed(Path file, RuntimeException e) {
    log.warn(
        "checking the header of the H2 file {} at open failed; opening it as it is: {}",
        file,
        e.toString());
    return new Outcome(-1, -1, false);
  }
}
