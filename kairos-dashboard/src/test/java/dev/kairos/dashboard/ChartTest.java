package dev.kairos.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lateness chart of a job page. */
class ChartTest {
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  @Test
  void backfillRun_isNoLateness_andDoesNotFlattenTheOtherBars() {
    RunRecord late =
        new RunRecord("a", T, T.plusMillis(50), T.plusMillis(60), RunOutcome.SUCCESS, null, 1, "i");
    Instant past = T.minusSeconds(90L * 86_400); // a fire 90 days back, run again on purpose
    RunRecord backfill =
        new RunRecord(
            "a",
            past,
            T.plusSeconds(1),
            T.plusSeconds(2),
            RunOutcome.SUCCESS,
            null,
            1,
            "i",
            false,
            0,
            true);

    String svg = Chart.svg(List.of(backfill, late)); // newest first

    assertThat(svg)
        .contains("lateness, max 50 ms")
        .contains(past + ": SUCCESS, backfill run")
        .contains(T + ": SUCCESS, 50 ms late");
  }
}
