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
  private static final int KILLS = 3;
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
        // Enough commits to grow the file past the compaction threshold (this workload, never
        // killed, levels off at about 8 MB with 4% of its chunks live: measured).
        long grown;
        do {
          child.awaitLine("RUNS", CHILD_TIMEOUT);
          grown = Files.size(file);
        } while (grown < H2Compaction.MIN_SIZE + MB);
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
      assertThat(store.jobStore().findAll()).hasSize(BusyH2Child.JOBS);
    } finally {
      store.close();
    }
    System.out.printf(
        "H2FileBoundTest: %s; %,d bytes before the last reopen, %,d after%n",
        sizes, beforeReopen, afterReopen);

    assertThat(beforeReopen)
        .as("file size before reopen, bytes")
        .isGreaterThan(H2Compaction.MIN_SIZE + MB);
    // The bound: an open leaves the file at most MIN_SIZE (4 MB) or 3 times its live pages,
    // whichever is larger; here, with well under a megabyte live, under 1 MB.
    assertThat(afterReopen).as("file size after reopen, bytes").isLessThan(MB);
    // ... and so did every open after a kill, in the children.
    for (int life = 1; life < KILLS; life++) {
      assertThat(Files.readString(dir.resolve("child-" + life + ".log")))
          .as("log of child %d, started after a SIGKILL", life)
          .contains("compacted to");
    }
  }
}
