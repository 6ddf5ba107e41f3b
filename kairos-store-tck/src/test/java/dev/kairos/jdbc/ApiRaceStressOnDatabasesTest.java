package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.engine.internal.ApiRaceStress;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.PostgresTestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ApiRaceStress} on H2 and PostgreSQL (issue #10, findings 1 and 2): eight threads call the
 * API on 20 jobs firing every 20 ms; no fire runs twice and nothing runs after pause returned.
 */
class ApiRaceStressOnDatabasesTest {
  @TempDir Path dir;

  @Test
  void h2() throws Exception {
    check(JdbcStore.h2(dir).jobStore());
  }

  @Test
  void postgres() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      check(db.builder().poolSize(8).build().jobStore());
    }
  }

  private static void check(JobStore store) throws Exception {
    long seed = System.nanoTime();
    ApiRaceStress.Report r = ApiRaceStress.run(store, 20, 8, Duration.ofSeconds(6), seed);

    assertThat(r.runs()).as("runs (seed %d)", seed).isGreaterThan(100);
    assertThat(r.duplicates()).as("fires run twice (seed %d): %s", seed, r.examples()).isZero();
    assertThat(r.runsAfterPause())
        .as("runs after pause (seed %d): %s", seed, r.examples())
        .isZero();
    assertThat(r.pausesLost())
        .as("paused jobs found unpaused in the store (seed %d): %s", seed, r.examples())
        .isZero();
  }
}
