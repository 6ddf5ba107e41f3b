package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.jdbc.internal.H2Compaction;
import dev.kairos.tck.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded H2 file stays proportional to its live data across SIGKILLs (issue #10): a child JVM
 * firing 20 jobs every 20 ms (each run a commit) is killed in the middle of its runs again and
 * again, and every time the file has grown past {@link H2Compaction#MIN_SIZE} the next open
 * compacts it back to about its live content (20 jobs and up to 100 history rows each: well under a
 * megabyte) before the pool starts.
 */
class H2FileBoundTest {
  private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(120);
  private static final int KILLS = 4;
  private static final long MB = 1024 * 1024;

  @TempDir Path dir;

  @Test
  void killedWhileFiringAgainAndAgain_reopenCompactsTheFileToBelowTheBound() throws Exception {
    Path file = dir.resolve("kairos.mv.db");
    List<String> sizes = new ArrayList<>();
    for (int life = 0; life < KILLS; life++) {
      try (ChildJvm child =
          ChildJvm.start(
              BusyH2Child.class, dir.resolve("child-" + life + ".log"), dir.toString())) {
        child.awaitLine("STARTED", CHILD_TIMEOUT);
        // Enough commits to grow the file past the compaction threshold: measured about 3 KB of
        // file per run (5% of each 16 KB-page chunk live), so 3,000 runs make about 8 MB.
        long grown;
        do {
          child.awaitLine("RUNS", CHILD_TIMEOUT);
          grown = Files.size(file);
        } while (grown < 2 * H2Compaction.MIN_SIZE);
        child.kill();
        sizes.add(life + ": " + grown / 1024 + " KB at the kill");
      }
    }
    long beforeReopen = Files.size(file);

    JdbcStore store = JdbcStore.h2(dir);
    long afterReopen;
    try {
      store.open();
      afterReopen = Files.size(file);
      assertThat(store.findAll()).hasSize(BusyH2Child.JOBS);
    } finally {
      store.close();
    }
    System.out.printf(
        "H2FileBoundTest: %s; %,d bytes before the last reopen, %,d after%n",
        sizes, beforeReopen, afterReopen);

    assertThat(beforeReopen)
        .as("file size before reopen, bytes")
        .isGreaterThan(2 * H2Compaction.MIN_SIZE);
    // The bound: after an open, the file is under the compaction threshold (4 MB) when its live
    // content is under a third of it, as here.
    assertThat(afterReopen).as("file size after reopen, bytes").isLessThan(H2Compaction.MIN_SIZE);
    assertThat(afterReopen).as("file size after reopen, bytes").isLessThan(1 * MB);
  }
}
