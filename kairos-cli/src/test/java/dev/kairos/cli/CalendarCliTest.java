package dev.kairos.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.dashboard.JobJson;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.jdbc.JdbcStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The calendar commands, and show and preview of jobs attached to calendars, over an H2 file store
 * written by a scheduler that never starts, at a fixed instant: Friday 2 January 2026, 01:00 in
 * Berlin.
 */
class CalendarCliTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final Instant NOW = Instant.parse("2026-01-02T00:00:00Z");

  @TempDir Path dir;

  private String url() {
    return "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
  }

  @BeforeEach
  void populate() {
    Scheduler s =
        Kairos.builder()
            .store(JdbcStore.builder().url(url()).build())
            .clock(new ManualClock(NOW))
            .defaultZone(BERLIN)
            .handler("ok", ctx -> {})
            .build();
    try {
      s.putCalendar(
          "berlin-desk",
          BusinessCalendar.in(BERLIN).weekdays().excluding(LocalDate.of(2026, 1, 6)));
      s.putCalendar(
          "desk-hours",
          BusinessCalendar.in(BERLIN).weekdays().between(LocalTime.of(8, 0), LocalTime.of(18, 0)));
      s.putCalendar("gone", BusinessCalendar.in(BERLIN));
      s.schedule(
          JobSpec.named("settle")
              .handler("ok")
              .cron("0 0 9 * * ?", BERLIN)
              .excluding("berlin-desk"));
      s.schedule(
          JobSpec.named("export")
              .handler("ok")
              .cron("0 0 20 * * ?", BERLIN)
              .jitter(Duration.ofMinutes(5))
              .excluding("desk-hours", CalendarPolicy.NEXT_ALLOWED));
      s.schedule(
          JobSpec.named("orphan").handler("ok").cron("0 0 9 * * ?", BERLIN).excluding("gone"));
    } finally {
      s.close();
    }
  }

  record Result(int code, String out, String err) {}

  private Result kairos(String... args) {
    List<String> all = new ArrayList<>(List.of("--url", url()));
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        KairosCli.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
    return new Result(code, out.toString(), err.toString());
  }

  /** Deletes a calendar behind the scheduler's back, as a hand-edited database might. */
  private void deleteCalendarRow(String name) throws Exception {
    try (Connection c = DriverManager.getConnection(url());
        Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM kairos_calendars WHERE calendar_name = '" + name + "'");
    }
  }

  @Test
  void calendars_listsEachInWords_withItsJobCount() {
    Result r = kairos("calendars");
    assertThat(r.code()).as("stderr: %s", r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            """
            NAME         ZONE           RULES                                                JOBS
            berlin-desk  Europe/Berlin  Monday to Friday, except 2026-01-06 (Europe/Berlin)  1
            desk-hours   Europe/Berlin  Monday to Friday, 08:00 to 18:00 (Europe/Berlin)     1
            gone         Europe/Berlin  every day (Europe/Berlin)                            1
            """);
  }

  @Test
  void calendars_json_givesRulesAsFields() throws Exception {
    JsonNode a = JobJson.mapper().readTree(kairos("calendars", "--json").out());
    assertThat(a)
        .extracting(n -> n.get("name").asText())
        .containsExactly("berlin-desk", "desk-hours", "gone");
    assertThat(a.get(0).get("excludedDates"))
        .extracting(JsonNode::asText)
        .containsExactly("2026-01-06");
    assertThat(a.get(1).get("until").asText()).isEqualTo("18:00");
    assertThat(a.get(2).get("jobs").asInt()).isEqualTo(1);
  }

  @Test
  void calendar_showsRulesJobsAndWhichDaysItAllows() {
    Result r = kairos("calendar", "berlin-desk", "--from", "2026-01-02", "--days", "6");
    assertThat(r.code()).as("stderr: %s", r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            """
            FIELD  VALUE
            name   berlin-desk
            zone   Europe/Berlin
            rules  Monday to Friday, except 2026-01-06 (Europe/Berlin)
            jobs   settle

            DATE        DAY  FIRES
            2026-01-02  Fri  allowed
            2026-01-03  Sat  excluded: not a business day
            2026-01-04  Sun  excluded: not a business day
            2026-01-05  Mon  allowed
            2026-01-06  Tue  excluded: excluded date
            2026-01-07  Wed  allowed
            """);
  }

  @Test
  void calendar_json_listsDatesWithReasons() throws Exception {
    Result r = kairos("calendar", "desk-hours", "--from", "2026-01-03", "--days", "3", "--json");
    JsonNode n = JobJson.mapper().readTree(r.out());
    assertThat(n.get("name").asText()).isEqualTo("desk-hours");
    assertThat(n.get("jobKeys")).extracting(JsonNode::asText).containsExactly("export");
    assertThat(n.get("dates"))
        .extracting(d -> d.get("allowed").asBoolean())
        .containsExactly(false, false, true);
    assertThat(n.get("dates").get(0).get("reason").asText()).isEqualTo("not a business day");
  }

  @Test
  void unknownCalendar_exits1NamingIt() {
    Result r = kairos("calendar", "no-such-desk");
    assertThat(r.code()).as("stderr: %s", r.err()).isEqualTo(KairosCli.FAILED);
    assertThat(r.err().strip()).isEqualTo("kairos: no calendar 'no-such-desk'");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void calendar_badDays_exits2() {
    Result r = kairos("calendar", "gone", "--days", "0");
    assertThat(r.code()).as("stderr: %s", r.err()).isEqualTo(KairosCli.USAGE);
    assertThat(r.err()).contains("--days must be from 1 to");
  }

  @Test
  void preview_skipCalendar_marksSkippedFires() {
    Result r = kairos("preview", "settle", "-n", "3");
    assertThat(r.code()).as("stderr: %s", r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            """
            at 09:00 (cron 0 0 9 * * ?, Europe/Berlin)
            calendar berlin-desk: skip excluded fires
            UTC                   Europe/Berlin            CALENDAR
            2026-01-02 08:00:00Z  2026-01-02 09:00:00 CET  fires
            2026-01-03 08:00:00Z  2026-01-03 09:00:00 CET  skipped (excluded)
            2026-01-04 08:00:00Z  2026-01-04 09:00:00 CET  skipped (excluded)
            2026-01-05 08:00:00Z  2026-01-05 09:00:00 CET  fires
            2026-01-06 08:00:00Z  2026-01-06 09:00:00 CET  skipped (excluded)
            2026-01-07 08:00:00Z  2026-01-07 09:00:00 CET  fires
            """);
  }

  /** Moved fires name their new time; with jitter each fire's due time is shown beside it. */
  @Test
  void show_nextAllowedCalendarAndJitter_showsMovesAndDueTimes() throws Exception {
    Result r = kairos("show", "export");
    assertThat(r.code()).as("stderr: %s", r.err()).isZero();
    assertThat(r.out())
        .contains("jitter        up to 5m")
        .contains("calendar      desk-hours: move excluded fires to the next allowed time")
        .containsPattern(
            "next fires +2026-01-05 07:00:00Z  \\(2026-01-05 08:00:00 CET\\)  due 2026-01-05"
                + " 07:0[0-4]:[0-9]{2}Z  fires\n")
        .contains(
            "2026-01-05 19:00:00Z  (2026-01-05 20:00:00 CET)  moved to 2026-01-06 07:00:00Z\n")
        .containsPattern(
            "2026-01-06 07:00:00Z  \\(2026-01-06 08:00:00 CET\\)  due 2026-01-06"
                + " 07:0[0-4]:[0-9]{2}Z  fires \\(moved\\)\n");
    JsonNode json = JobJson.mapper().readTree(kairos("show", "export", "--json").out());
    JsonNode second = json.get("upcoming").get(1);
    assertThat(second.get("moved"))
        .extracting(JsonNode::asText)
        .containsExactly("2026-01-05T19:00:00Z");
    Instant fire = Instant.parse(second.get("fire").asText());
    assertThat(Instant.parse(second.get("due").asText()))
        .isAfterOrEqualTo(fire)
        .isBefore(fire.plus(Duration.ofMinutes(5)));
  }

  @Test
  void preview_jitterAndNextAllowed_addsDueAndCalendarColumns() throws Exception {
    Result r = kairos("preview", "export", "-n", "2");
    assertThat(r.code()).as("stderr: %s", r.err()).isZero();
    assertThat(r.out().lines())
        .containsSubsequence(
            "calendar desk-hours: move excluded fires to the next allowed time",
            "UTC                   Europe/Berlin            DUE (UTC)             CALENDAR");
    assertThat(r.out())
        .containsPattern(
            "2026-01-05 19:00:00Z  2026-01-05 20:00:00 CET  +moved to 2026-01-06 07:00:00Z\n");
    JsonNode json =
        JobJson.mapper().readTree(kairos("preview", "export", "-n", "2", "--json").out());
    assertThat(json.get("fires"))
        .extracting(JsonNode::asText)
        .containsExactly("2026-01-05T07:00:00Z", "2026-01-06T07:00:00Z");
  }

  @Test
  void show_missingCalendar_namesIt_andStillShowsTheJob() throws Exception {
    deleteCalendarRow("gone");
    Result r = kairos("show", "orphan");
    assertThat(r.code()).as("stderr: %s", r.err()).isZero();
    assertThat(r.out())
        .contains("calendar problem  calendar 'gone' is not stored")
        .contains("next fires        2026-01-02 08:00:00Z  (2026-01-02 09:00:00 CET)  fires\n");
    assertThat(kairos("calendar", "gone").err()).contains("no calendar 'gone'");
  }
}
