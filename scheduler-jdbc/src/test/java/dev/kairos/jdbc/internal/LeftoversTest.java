package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.jdbc.internal.Leftovers.Kind;
import dev.kairos.jdbc.internal.Leftovers.Made;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What {@link Leftovers} reads from a MariaDB or MySQL script: every statement of every script is
 * one it can undo (a new script with another kind of statement fails here, not at a user's
 * migration), and the objects it finds are the script's.
 */
class LeftoversTest {
  @ParameterizedTest
  @EnumSource(
      value = Dialect.class,
      names = {"MARIADB", "MYSQL"})
  void everyScriptIsReadWhole(Dialect dialect) {
    for (String script : Migrations.SCRIPTS) {
      String text = Leftovers.read(dialect, script);
      List<Made> made = Leftovers.made(script, text, "kairos_");
      long makers =
          text.lines()
              .filter(l -> l.matches("(CREATE (TABLE|INDEX|SEQUENCE)|ALTER TABLE) .*"))
              .count();
      assertThat(made).as(script).hasSize((int) makers);
      for (Made m : made) {
        assertThat(m.table()).as(script).startsWith("kairos_");
      }
    }
  }

  @Test
  void version1_twoTablesWithTheirColumnsAndIndexes() {
    List<Made> made =
        Leftovers.made("V1__jobs.sql", Leftovers.read(Dialect.MYSQL, "V1__jobs.sql"), "p_");

    assertThat(made)
        .extracting(Made::toString)
        .containsExactly(
            "table p_jobs",
            "index p_jobs_due on p_jobs",
            "table p_runs",
            "index p_runs_job on p_runs");
    assertThat(made.get(0).columns())
        .hasSize(35)
        .startsWith("job_key", "handler")
        .endsWith("claimed_fire");
    assertThat(made.get(2).columns())
        .containsExactly(
            "id",
            "job_key",
            "scheduled_fire_time",
            "run_start",
            "run_end",
            "outcome",
            "error",
            "attempt",
            "instance");
  }

  @Test
  void versions2To10_sequencesColumnsAndCompositeKeys() {
    assertThat(made(Dialect.MARIADB, "V2__cluster.sql"))
        .extracting(Made::toString)
        .contains("sequence kairos_change_seq", "column kairos_jobs.recovery");
    assertThat(made(Dialect.MYSQL, "V2__cluster.sql"))
        .extracting(Made::toString)
        .contains("table kairos_change_stamps")
        .noneMatch(s -> s.startsWith("sequence"));
    Made backfill = made(Dialect.MARIADB, "V6__backfill.sql").get(0);
    assertThat(backfill.columns()).containsExactly("job_key", "fire_time", "state", "owner");
    assertThat(made(Dialect.MARIADB, "V10__concurrent_runs.sql"))
        .containsExactly(new Made(Kind.COLUMN, "kairos_backfill", "kind", List.of()));
    assertThat(made(Dialect.MARIADB, "V13__unused_indexes.sql")).isEmpty();
  }

  @Test
  void aStatementItCannotUndo_isRefusedNamingScriptAndStatement() {
    String text =
        "-- a comment\nCREATE TABLE ${prefix}x (\n  a INTEGER\n);\n\nDROP INDEX ${prefix}y ON"
            + " ${prefix}x;\n";

    assertThatThrownBy(() -> Leftovers.made("V99__odd.sql", text, "k_"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("V99__odd.sql, statement 2")
        .hasMessageContaining("DROP INDEX k_y ON k_x");
  }

  private static List<Made> made(Dialect dialect, String script) {
    return Leftovers.made(script, Leftovers.read(dialect, script), "kairos_");
  }
}
