package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.tck.RestartContract;
import dev.kairos.tck.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Restarts over an embedded H2 file. */
class H2RestartTest extends RestartContract {
  @TempDir Path dir;

  @Override
  protected TestDatabase database() {
    return new H2TestDatabase(dir);
  }

  /** A restart opens the same database file, with the jobs and statistics left in it. */
  @Test
  void restart_reopensTheSameFile() throws IOException {
    ManualClock clock = new ManualClock(MON_0100);
    KairosScheduler first = instance(clock, List.of("h"));
    first.open();
    first.schedule(
        JobSpec.named("a").handler("h").fixedRate(Duration.ofHours(1)).startAt(MON_0200));
    clock.set(MON_0200);
    first.runDue();
    first.close();
    List<Path> filesBefore = dbFiles();

    KairosScheduler second = instance(clock, List.of("h"));
    second.open();

    assertThat(filesBefore).containsExactly(dir.resolve("kairos.mv.db"));
    assertThat(dbFiles()).isEqualTo(filesBefore);
    JobInfo a = second.job("a").orElseThrow();
    assertThat(a.runCount()).isEqualTo(1);
    assertThat(a.nextFireTime()).isEqualTo(MON_0200.plusSeconds(3600));
  }

  private List<Path> dbFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".db")).sorted().toList();
    }
  }
}
