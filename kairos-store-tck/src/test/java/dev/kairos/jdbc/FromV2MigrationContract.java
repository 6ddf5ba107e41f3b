package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.jdbc.internal.Dialect;
import dev.kairos.jdbc.internal.Migrations;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A database at schema version 2, built from the shipped V1 and V2 scripts as the runner before
 * Flyway applied them (its {@code <prefix>schema_version} table included) and holding jobs as a
 * version-2 Kairos wrote them, opened by this Kairos: Flyway adopts it at version 2 and migrates it
 * to the latest version, the old runner's rows are kept, and so are its jobs, equal to their
 * definitions, with their statistics, and they fire.
 */
abstract class FromV2MigrationContract {
  static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");
  static final Duration MINUTE = Duration.ofMinutes(1);

  private final String prefix = JdbcStoreContract.nextPrefix();
  private final List<KairosScheduler> schedulers = new ArrayList<>();
  private final List<String> runs = Collections.synchronizedList(new ArrayList<>());

  protected abstract TestDatabase database();

  /** The dialect's folder of DDL scripts. */
  protected abstract String folder();

  @AfterEach
  void closeSchedulers() {
    schedulers.forEach(KairosScheduler::close);
  }

  @Test
  void v2Database_opens_migratesToLatest_andKeepsItsJobs() {
    createVersion2();
    insertV2Job("rate", "'FIXED_RATE', 'PT1M', NULL, NULL", "'CATCH_UP', 2147483647, 'PT1S'", 5);
    insertV2Job("cron", "'CRON', NULL, '0 * * * * ?', 'UTC'", "'FIRE_ONCE', NULL, 'PT2S'", 0);

    ManualClock clock = new ManualClock(T0);
    KairosScheduler s = instance(clock);
    s.open();

    assertThat(schemaVersion()).isEqualTo(Migrations.latest());
    // Flyway adopted the old runner's tables by a baseline at 2 and applied the later scripts;
    // the old runner's rows are kept as they were.
    List<String> applied = new ArrayList<>(List.of("2 BASELINE"));
    for (String script : Migrations.SCRIPTS.subList(2, Migrations.SCRIPTS.size())) {
      applied.add(Migrations.version(script) + " SQL " + script);
    }
    assertThat(flywayHistory()).containsExactlyElementsOf(applied);
    assertThat(legacyHistory())
        .containsExactly("1 " + Migrations.SCRIPTS.get(0), "2 " + Migrations.SCRIPTS.get(1));
    assertThat(s.unreadable()).isEmpty();
    JobSpec rate = JobSpec.named("rate").handler("h").fixedRate(MINUTE).misfire(Misfire.catchUp());
    JobSpec cron =
        JobSpec.named("cron")
            .handler("h")
            .cron("0 * * * * ?", ZoneId.of("UTC"))
            .misfire(Misfire.fireOnce().threshold(Duration.ofSeconds(2)));
    JobInfo kept = s.job("rate").orElseThrow();
    assertThat(kept.spec()).isEqualTo(rate);
    assertThat(kept.spec().jitter()).isEmpty();
    assertThat(kept.runCount()).isEqualTo(5);
    assertThat(kept.nextFireTime()).isEqualTo(T0.plus(MINUTE));
    assertThat(s.job("cron").orElseThrow().spec()).isEqualTo(cron);

    // The same definitions again change nothing: version-2 rows read as "no window, no jitter".
    assertThat(s.schedule(rate)).isEqualTo(kept);

    clock.set(T0.plus(MINUTE));
    s.runDue();
    assertThat(runs)
        .containsExactlyInAnyOrder("rate@" + T0.plus(MINUTE), "cron@" + T0.plus(MINUTE));

    // The new columns take new definitions.
    JobSpec windowed =
        rate.misfire(Misfire.catchUp().within(Duration.ofHours(1))).jitter(Duration.ofSeconds(5));
    s.schedule(windowed);
    assertThat(s.job("rate").orElseThrow().spec()).isEqualTo(windowed);
  }

  /**
   * Flyway makes its history table, then writes the baseline row that adopts the old runner's
   * tables: on H2, MariaDB and MySQL two commits. A cut between them left an empty history table,
   * and every later open took the tables for version 0 and ran V1 over them, which refused them.
   */
  @Test
  void v2Database_adoptionCutBeforeItsBaselineRow_theNextOpenAdoptsIt() throws SQLException {
    createVersion2();
    insertV2Job("rate", "'FIXED_RATE', 'PT1M', NULL, NULL", "'CATCH_UP', 2147483647, 'PT1S'", 5);
    Dialect dialect;
    try (Connection c = database().connect()) {
      dialect = Dialect.of(c.getMetaData());
    }
    DataSource connections =
        new TestDataSource() {
          @Override
          public Connection getConnection() throws SQLException {
            return database().connect();
          }
        };
    Migrations.flyway(connections, dialect, prefix, 2).baseline();
    String delete = "DELETE FROM \"" + prefix + Migrations.HISTORY + "\"";
    database().execute(dialect.mysqlFamily() ? delete.replace('"', '`') : delete);

    KairosScheduler s = instance(new ManualClock(T0));
    s.open(); // threw before: V1 ran over the version-2 tables

    assertThat(schemaVersion()).isEqualTo(Migrations.latest());
    assertThat(flywayHistory()).startsWith("2 BASELINE").hasSize(Migrations.SCRIPTS.size() - 1);
    assertThat(s.job("rate").orElseThrow().runCount()).isEqualTo(5);
  }

  private KairosScheduler instance(ManualClock clock) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(database().builder().tablePrefix(prefix).build())
                .clock(clock)
                .defaultZone(ZoneOffset.UTC)
                .handler("h", ctx -> runs.add(ctx.key() + "@" + ctx.scheduledFireTime())));
    schedulers.add(s);
    return s;
  }

  /** The schema as version 2 left it: its scripts applied, its version rows written. */
  private void createVersion2() {
    database()
        .execute(
            "CREATE TABLE "
                + prefix
                + "schema_version (version INTEGER NOT NULL PRIMARY KEY, script VARCHAR(200) NOT"
                + " NULL, installed_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)");
    List<String> scripts = Migrations.SCRIPTS.subList(0, 2);
    for (int v = 1; v <= scripts.size(); v++) {
      statements(scripts.get(v - 1)).forEach(database()::execute);
      database()
          .execute(
              "INSERT INTO "
                  + prefix
                  + "schema_version (version, script) VALUES ("
                  + v
                  + ", '"
                  + scripts.get(v - 1)
                  + "')");
    }
  }

  /** A fixed-rate or cron job due at T0 + 1 min, with its columns as version 2 wrote them. */
  private void insertV2Job(String key, String schedule, String misfire, long runCount) {
    long next = T0.plus(MINUTE).getEpochSecond();
    database()
        .execute(
            "INSERT INTO "
                + prefix
                + "jobs (job_key, handler, schedule_kind, fixed_period, cron_expression,"
                + " cron_zone, misfire_kind, misfire_max, misfire_threshold, retry_max_attempts,"
                + " retry_initial_delay, state, next_fire_time, due_time, due_kind, attempt,"
                + " run_count, failure_count, version, cron_syntax, dst_gap, dst_overlap)"
                + " VALUES ('"
                + key
                + "', 'h', "
                + schedule
                + ", "
                + misfire
                + ", 1, 'PT0S', 'SCHEDULED', "
                + next
                + ", "
                + next
                + ", 'TIMETABLE', 1, "
                + runCount
                + ", 0, 7, "
                + (schedule.contains("CRON") ? "'QUARTZ', 'SHIFT', 'FIRST'" : "NULL, NULL, NULL")
                + ")");
  }

  private int schemaVersion() {
    try (Connection c = database().connect()) {
      return Migrations.version(c, Dialect.of(c.getMetaData()), prefix);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The Flyway history of the prefix: version, type and script of each version's row, in order. */
  private List<String> flywayHistory() {
    try (Connection c = database().connect();
        Statement st = c.createStatement()) {
      String sql =
          "SELECT \"version\", \"type\", \"script\" FROM \""
              + prefix
              + Migrations.HISTORY
              + "\" WHERE \"success\" = TRUE ORDER BY \"installed_rank\"";
      List<String> rows = new ArrayList<>();
      try (ResultSet rs =
          st.executeQuery(
              Dialect.of(c.getMetaData()).mysqlFamily() ? sql.replace('"', '`') : sql)) {
        while (rs.next()) {
          if (rs.getString(1) != null) { // Flyway's marker rows have none
            String type = rs.getString(2);
            rows.add(
                rs.getString(1) + " " + type + (type.equals("SQL") ? " " + rs.getString(3) : ""));
          }
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The rows of the old runner's version table: version and script, in order. */
  private List<String> legacyHistory() {
    try (Connection c = database().connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT version, script FROM " + prefix + "schema_version ORDER BY version")) {
      List<String> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(rs.getInt(1) + " " + rs.getString(2));
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The statements of a shipped script, as the migration runner splits them. */
  private List<String> statements(String script) {
    String path = "/dev/kairos/jdbc/" + folder() + "/" + script;
    try (InputStream in = Migrations.class.getResourceAsStream(path)) {
      String text =
          new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${prefix}", prefix);
      String code =
          text.lines().filter(l -> !l.strip().startsWith("--")).collect(Collectors.joining("\n"));
      return Arrays.stream(code.split(";\\s*(\\n|$)"))
          .map(String::strip)
          .filter(s -> !s.isEmpty())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
