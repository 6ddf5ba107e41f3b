package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.kairos.jdbc.internal.Leftovers.Kind;
import dev.kairos.jdbc.internal.Leftovers.Made;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What {@link Leftovers} reads from an H2, MariaDB or MySQL script: every statement of every script
 * is one it can undo (a new script with another kind of statement fails here, not at a user's
 * migration), and the objects it finds are the script's.
 */
class LeftoversTest {
  @ParameterizedTest
  @EnumSource(
      value = Dialect.class,
      names = {"H2", "MARIADB", "MYSQL"})
  void everyScriptIsReadWhole(Dialect dialect) {
    for (String script : Migrations.SCRIPTS) {
      List<String> statements = Leftovers.statements(Leftovers.read(dialect, script), "kairos_");
      List<Made> made = Leftovers.made(dialect, script, "kairos_");
      long repeatable =
          statements.stream().filter(s -> s.startsWith("UPDATE ") || s.contains(" CACHE ")).count();
      assertThat(made).as(script).hasSize(statements.size() - (int) repeatable);
      for (Made m : made) {
        assertThat(m.table()).as(script).startsWith("kairos_");
      }
    }
  }

  @Test
  void h2Version13_theIndexesItDrops_areMadeAgainAsTheirScriptsMadeThem() {
    assertThat(made(Dialect.H2, "V13__unused_indexes.sql"))
        .extracting(Made::kind, Made::name, Made::table, Made::restore)
        .containsExactly(
            tuple(
                Kind.DROPPED_INDEX,
                "kairos_jobs_state",
                "kairos_jobs",
                "CREATE INDEX kairos_jobs_state ON kairos_jobs (state, owner)"),
            tuple(
                Kind.DROPPED_INDEX,
                "kairos_jobs_calendar",
                "kairos_jobs",
                "CREATE INDEX kairos_jobs_calendar ON kairos_jobs (calendar_name)"));
    assertThat(made(Dialect.H2, "V9__change_seq_cache.sql")).isEmpty();
    assertThat(made(Dialect.H2, "V12__run_id_cache.sql")).isEmpty();
  }

  @Test
  void version1_twoTablesWithTheirColumnsAndIndexes() {
    List<Made> made = Leftovers.made(Dialect.MYSQL, "V1__jobs.sql", "p_");

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

    assertThatThrownBy(() -> Leftovers.made("V99__odd.sql", text, "k_", Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("V99__odd.sql, statement 2")
        .hasMessageContaining("DROP INDEX k_y ON k_x");
  }

  private static List<Made> made(Dialect dialect, String script) {
    return Leftovers.made(dialect, script, "kairos_");
  }
}
