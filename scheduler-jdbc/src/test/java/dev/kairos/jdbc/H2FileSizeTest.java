package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.ScheduleState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded H2 file stays proportional to live data (issue #10, item 7): thousands of
 * write-backs, each a commit that makes H2 write a new chunk, leave a file of a few megabytes, not
 * one that grows by every commit (about 18 KB each with H2's default 45 s retention of old chunks:
 * 54 MB for the 3,000 write-backs here; 179 MB for 10,000).
 */
class H2FileSizeTest {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");
  static final long MB = 1024 * 1024;

  @TempDir Path dir;

  @Test
  void threeThousandWriteBacks_fileStaysSmall_whileOpenAndAfterClose() throws IOException {
    JdbcStore store = JdbcStore.h2(dir);
    long whileOpen;
    try {
      store.open();
      List<JobRecord> jobs = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        jobs.add(
            store
                .jobStore()
                .upsert(
                    JobRecord.fresh(
                        JobSpec.named("job-" + i).handler("h").fixedRate(Duration.ofMinutes(1)),
                        T0))
                .record());
      }
      for (int round = 0; round < 300; round++) {
        for (int i = 0; i < jobs.size(); i++) {
          jobs.set(i, store.jobStore().runFinished(success(jobs.get(i))).orElseThrow());
        }
      }
      assertThat(jobs).allMatch(r -> r.runCount() == 300);
      whileOpen = size();
    } finally {
      store.close();
    }
    long closed = size();
    System.out.printf(
        "H2FileSizeTest: 3,000 write-backs: file %,d bytes while open, %,d after close%n",
        whileOpen, closed);

    // 10 jobs and 1,000 runs of history (100 per job): well under 1 MB of live data. Measured:
    // 2.6 MB with RETENTION_TIME=0, about 54 MB without.
    assertThat(whileOpen).as("file size while open, bytes").isLessThan(8 * MB);
    assertThat(closed).as("file size after close, bytes").isLessThan(8 * MB);
  }

  private long size() throws IOException {
    return Files.size(dir.resolve("kairos.mv.db"));
  }

  /** A successful run of {@code r}'s due fire, due again a minute later. */
  static RunResult success(JobRecord r) {
    Instant fire = r.dueTime();
    return new RunResult(
        new RunRecord(
            r.key(),
            fire,
            fire.plusMillis(5),
            fire.plusMillis(25),
            RunOutcome.SUCCESS,
            null,
            1,
            "node-1"),
        r.version(),
        new ScheduleState(
            JobState.SCHEDULED, fire.plusSeconds(60), fire.plusSeconds(60), FireKind.TIMETABLE, 1));
  }
}
