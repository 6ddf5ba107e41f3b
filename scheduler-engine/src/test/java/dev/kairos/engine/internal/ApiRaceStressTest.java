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
    ApiRaceStress.assertClean(r, seed);
  }

  /**
   * The same with every call in a transaction of the caller's that stays open up to 3 ms after it
   * (the jobs held meanwhile): no fire twice, none after a pause committed, and every job fires
   * again afterwards (no hold left behind, no fire left set aside). Every kind of call, unschedule
   * and schedule again of one key in one transaction included (docs/RELIABILITY.md, stops 52 and
   * 53).
   */
  @Test
  void apiCallsInCallerTransactionsRacingRuns_neverRunAFireTwice_norAfterPause_noJobLeftHeld()
      throws Exception {
    long seed = System.nanoTime();
    ApiRaceStress.Report r =
        ApiRaceStress.run(new InMemoryStore(), 20, 8, Duration.ofSeconds(5), seed, true, "012345");

    assertThat(r.calls()).isGreaterThan(1000);
    ApiRaceStress.assertCleanInTransactions(r, seed, 500);
  }
}
