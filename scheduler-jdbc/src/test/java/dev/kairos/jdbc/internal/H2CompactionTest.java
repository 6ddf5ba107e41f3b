package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction at open of an embedded H2 file: a file over the threshold and mostly dead is compacted
 * to about its live content; a small or mostly live one is left alone; no file, nothing done.
 */
class H2CompactionTest {
  private static final long MB = 1024 * 1024;

  @TempDir Path dir;

  private String url() {
    return "jdbc:h2:async:"
        + dir.resolve("kairos")
        + ";WRITE_DELAY=0;MAX_COMPACT_TIME=0;RETENTION_TIME=0;DB_CLOSE_ON_EXIT=FALSE";
  }

  private Path file() {
    return dir.resolve("kairos.mv.db");
  }

  /**
   * Writes about {@code mb} MB in 1,000 rows in one transaction (so the file is about that size,
   * all live), then deletes all but {@code keep} of them.
   */
  private void fill(int mb, int keep) throws Exception {
    try (Connection c = DriverManager.getConnection(url());
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARBINARY(1000000))");
      int rows = 1000;
      byte[] value = new byte[mb * (int) MB / rows];
      new java.util.Random(1).nextBytes(value); // incompressible
      c.setAutoCommit(false);
      try (PreparedStatement p = c.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
        for (int i = 0; i < rows; i++) {
          p.setInt(1, i);
          p.setBytes(2, value);
          p.executeUpdate();
        }
      }
      c.commit();
      s.execute("DELETE FROM t WHERE id >= " + keep);
      c.commit();
    }
  }

  @Test
  void largeMostlyDeadFile_isCompactedToAboutItsLiveContent() throws Exception {
    fill(8, 10); // 8 MB written, 1 % of it kept
    long before = Files.size(file());
    assertThat(before).isGreaterThan(H2Compaction.MIN_SIZE);

    H2Compaction.Outcome o = H2Compaction.compactIfSparse(url(), file());

    assertThat(o.compacted()).isTrue();
    assertThat(o.before()).isEqualTo(before);
    assertThat(o.after()).isEqualTo(Files.size(file())).isLessThan(MB);
    try (Connection c = DriverManager.getConnection(url());
        Statement s = c.createStatement();
        var r = s.executeQuery("SELECT COUNT(*) FROM t")) {
      r.next();
      assertThat(r.getInt(1)).as("rows kept").isEqualTo(10);
    }
  }

  @Test
  void largeMostlyLiveFile_isLeftAlone() throws Exception {
    fill(8, 1000); // all kept
    long before = Files.size(file());

    H2Compaction.Outcome o = H2Compaction.compactIfSparse(url(), file());

    assertThat(o.compacted()).as("%s", o).isFalse();
    assertThat(o.live()).isGreaterThan(before / H2Compaction.MAX_RATIO);
    assertThat(Files.size(file())).isEqualTo(before);
  }

  @Test
  void noFileOrSmallFile_nothingIsDone() throws Exception {
    assertThat(H2Compaction.compactIfSparse(url(), file()).compacted()).isFalse();
    assertThat(Files.exists(file())).isFalse();
  }
}
