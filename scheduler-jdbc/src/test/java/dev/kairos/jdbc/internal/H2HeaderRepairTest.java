package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.JobRecord;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repair of an H2 file whose header names an overwritten chunk, on a file a SIGKILL left so in
 * a soak (stop 64: {@code header-names-overwritten-chunk.mv.db.gz}, the killed instance's file as
 * it was before the restart). The killed instance had answered, in its last 20 ms, pauses of {@code
 * race-01} and {@code race-02}, the unschedule of {@code race-09} and the creation of {@code
 * race-08}; H2 alone opens the file without them.
 */
class H2HeaderRepairTest {
  @TempDir Path dir;

  /** The fixture, unpacked as {@code <folder>/kairos.mv.db}. */
  private Path fixture(Path folder) throws Exception {
    Files.createDirectories(folder);
    Path file = folder.resolve("kairos.mv.db");
    try (InputStream in =
        new GZIPInputStream(
            H2HeaderRepairTest.class.getResourceAsStream(
                "/h2/header-names-overwritten-chunk.mv.db.gz"))) {
      Files.copy(in, file);
    }
    return file;
  }

  /** The race jobs' states as H2 reads the file, read-only. */
  private static Map<String, String> states(Path file) throws Exception {
    String base = file.toString().substring(0, file.toString().length() - ".mv.db".length());
    Map<String, String> states = new TreeMap<>();
    try (Connection c = DriverManager.getConnection("jdbc:h2:" + base + ";ACCESS_MODE_DATA=r");
        ResultSet r =
            c.createStatement()
                .executeQuery(
                    "SELECT job_key, state FROM kairos_jobs WHERE job_key IN"
                        + " ('race-01', 'race-02', 'race-08', 'race-09')")) {
      while (r.next()) {
        states.put(r.getString(1), r.getString(2));
      }
    }
    return states;
  }

  @Test
  void headerNamingAnOverwrittenChunk_isRewritten_andTheAnsweredCommitsAreBack() throws Exception {
    Path asKilled = fixture(dir.resolve("plain"));
    assertThat(states(asKilled))
        .as("what H2 alone reads: the last 20 ms of answered commits gone")
        .containsEntry("race-01", "SCHEDULED")
        .containsEntry("race-02", "SCHEDULED")
        .containsEntry("race-09", "SCHEDULED")
        .doesNotContainKey("race-08");

    Path file = fixture(dir.resolve("repaired"));
    H2HeaderRepair.Outcome o = H2HeaderRepair.repairIfStale(file);

    assertThat(o.repaired()).isTrue();
    assertThat(o.newest()).isGreaterThan(o.opened());
    assertThat(states(file))
        .containsEntry("race-01", "PAUSED")
        .containsEntry("race-02", "PAUSED")
        .containsEntry("race-08", "SCHEDULED")
        .doesNotContainKey("race-09");
    assertThat(H2HeaderRepair.repairIfStale(file).repaired()).as("a second open").isFalse();
  }

  @Test
  void storeOpen_repairsBeforeAnythingReadsTheFile() throws Exception {
    fixture(dir);
    JdbcStore store = JdbcStore.h2(dir);
    try {
      store.open();
      assertThat(store.jobStore().find("race-02").map(JobRecord::state)).contains(JobState.PAUSED);
      assertThat(store.jobStore().find("race-01").map(JobRecord::state)).contains(JobState.PAUSED);
      assertThat(store.jobStore().find("race-09")).isEmpty();
    } finally {
      store.close();
    }
  }

  @Test
  void noFile_orAFileClosedCleanly_isLeftAlone() throws Exception {
    Path file = dir.resolve("kairos.mv.db");
    assertThat(H2HeaderRepair.repairIfStale(file).repaired()).isFalse();
    assertThat(file).doesNotExist();

    JdbcStore store = JdbcStore.h2(dir);
    try {
      store.open();
      store
          .jobStore()
          .upsert(
              JobRecord.fresh(
                  JobSpec.named("a").handler("h").fixedRate(Duration.ofMinutes(1)),
                  Instant.parse("2026-01-05T02:00:00Z")));
    } finally {
      store.close();
    }
    long size = Files.size(file);
    H2HeaderRepair.Outcome o = H2HeaderRepair.repairIfStale(file);

    assertThat(o.repaired()).isFalse();
    assertThat(o.newest()).as("not looked for: the header says clean").isEqualTo(-1);
    assertThat(Files.size(file)).isEqualTo(size);
  }
}
