package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.engine.InMemoryStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link ApiRaceStress} on the in-memory store: no fire twice, no run after pause. */
class ApiRaceStressTest {
  @Test
  void apiCallsRacingRuns_neverRunAFireTwice_norAfterPause() throws Exception {
    long seed = System.nanoTime();
    ApiRaceStress.Report r =
        ApiRaceStress.run(new InMemoryStore(), 20, 8, Duration.ofSeconds(5), seed);

    assertThat(r.runs()).as("runs (seed %d)", seed).isGreaterThan(500);
    assertThat(r.calls()).isGreaterThan(1000);
    assertThat(r.duplicates()).as("fires run twice (seed %d): %s", seed, r.examples()).isZero();
    assertThat(r.runsAfterPause())
        .as("runs after pause (seed %d): %s", seed, r.examples())
        .isZero();
    assertThat(r.pausesLost())
        .as("paused jobs found unpaused in the store (seed %d): %s", seed, r.examples())
        .isZero();
  }
}
