package dev.kairos.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The calendar views over HTTP: a job's next fires with the excluded ones marked (skipped, or moved
 * and to when), jitter shown as due times, a missing calendar named, the calendars page and its
 * JSON.
 */
class DashboardCalendarsTest {
  private final CalendarFixture fixture = new CalendarFixture();
  private final HttpClient http = HttpClient.newHttpClient();
  private KairosDashboard dashboard;

  @BeforeEach
  void start() {
    dashboard =
        KairosDashboard.builder(fixture.scheduler)
            .port(0)
            .zone(CalendarFixture.BERLIN)
            .clock(java.time.Clock.fixed(CalendarFixture.NOW, CalendarFixture.BERLIN))
            .start();
  }

  @AfterEach
  void tearDown() {
    dashboard.close();
    fixture.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(dashboard.uri().resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode json(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).isEqualTo(200);
    return JobJson.mapper().readTree(r.body());
  }

  @Test
  void jobPage_skipCalendar_marksExcludedFiresSkipped() throws Exception {
    HttpResponse<String> r = get("/job?key=settle");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("<a id=\"calendar\" href=\"/calendars#cal-berlin-desk\">berlin-desk</a>")
        .contains("Calendar <strong>berlin-desk</strong> applied: skip excluded fires.")
        .contains(
            "<tr class=\"fire\"><td>2026-01-02 09:00:00 CET</td><td>2026-01-02 08:00:00Z</td>"
                + "<td>fires</td></tr>"
                + "<tr class=\"skipped\"><td>2026-01-03 09:00:00 CET</td>"
                + "<td>2026-01-03 08:00:00Z</td><td>skipped (excluded)</td></tr>"
                + "<tr class=\"skipped\"><td>2026-01-04 09:00:00 CET</td>"
                + "<td>2026-01-04 08:00:00Z</td><td>skipped (excluded)</td></tr>"
                + "<tr class=\"fire\"><td>2026-01-05 09:00:00 CET</td>")
        .contains(
            "<tr class=\"skipped\"><td>2026-01-06 09:00:00 CET</td>"
                + "<td>2026-01-06 08:00:00Z</td><td>skipped (excluded)</td></tr>"
                + "<tr class=\"fire\"><td>2026-01-07 09:00:00 CET</td>");
    assertThat(r.body().split("<tr class=\"fire\">", -1)).hasSize(11);
  }

  @Test
  void jobPage_nextAllowedCalendar_showsWhereExcludedFiresMove() throws Exception {
    String body = get("/job?key=export").body();
    assertThat(body)
        .contains("move excluded fires to the next allowed time")
        .contains(
            "<tr class=\"fire\"><td>2026-01-05 08:00:00 CET</td><td>2026-01-05 07:00:00Z</td>"
                + "<td>fires</td></tr>"
                + "<tr class=\"moved\"><td>2026-01-05 20:00:00 CET</td>"
                + "<td>2026-01-05 19:00:00Z</td><td>moved to 2026-01-06 08:00:00 CET</td></tr>"
                + "<tr class=\"fire\"><td>2026-01-06 08:00:00 CET</td>"
                + "<td>2026-01-06 07:00:00Z</td><td>fires (moved fires run here)</td></tr>");
  }

  @Test
  void jobJson_listsFiresWithTheCalendarApplied() throws Exception {
    JsonNode job = json("/api/job?key=settle");
    assertThat(job.get("nextFires").get(1).asText()).isEqualTo("2026-01-05T08:00:00Z");
    JsonNode monday = job.get("upcoming").get(1);
    assertThat(monday.get("fire").asText()).isEqualTo("2026-01-05T08:00:00Z");
    assertThat(monday.get("skipped"))
        .extracting(JsonNode::asText)
        .containsExactly("2026-01-03T08:00:00Z", "2026-01-04T08:00:00Z");
    assertThat(monday.get("excludedCount").asLong()).isEqualTo(2);
    assertThat(job.has("calendarProblem")).isFalse();

    JsonNode moved = json("/api/job?key=export").get("upcoming").get(1);
    assertThat(moved.get("fire").asText()).isEqualTo("2026-01-06T07:00:00Z");
    assertThat(moved.get("moved"))
        .extracting(JsonNode::asText)
        .containsExactly("2026-01-05T19:00:00Z");
  }

  /** A long excluded stretch (a weekend of minutes) is listed up to ten rows, then counted. */
  @Test
  void jobPage_longExclusion_listsTenSlotsAndCountsTheRest() throws Exception {
    String body = get("/job?key=tick").body();
    assertThat(body)
        .contains("<tr class=\"fire\"><td>2026-01-02 23:59:00 CET</td>")
        .contains("<tr class=\"skipped\"><td>2026-01-03 00:09:00 CET</td>")
        .doesNotContain("<td>2026-01-03 00:10:00 CET</td>")
        .contains(
            "<tr class=\"skipped-more\"><td colspan=\"4\">and 2870 more excluded slot(s) before"
                + " this fire, skipped</td></tr>"
                + "<tr class=\"fire\"><td>2026-01-05 00:00:00 CET</td>");
  }

  /** Each due time lies in [fire, fire + jitter); the page shows them beside the fires. */
  @Test
  void jitteredJob_showsDueTimesWithinTheJitter() throws Exception {
    JsonNode upcoming = json("/api/job?key=poll").get("upcoming");
    assertThat(upcoming).hasSize(10);
    boolean anyOffset = false;
    for (JsonNode f : upcoming) {
      Instant fire = Instant.parse(f.get("fire").asText());
      Instant due = Instant.parse(f.get("due").asText());
      assertThat(due).isAfterOrEqualTo(fire).isBefore(fire.plus(Duration.ofMinutes(10)));
      anyOffset |= !due.equals(fire);
    }
    assertThat(anyOffset).isTrue();
    assertThat(get("/job?key=poll").body())
        .contains("<th>jitter</th><td>up to 10m</td>")
        .contains("<th>due with jitter (Europe/Berlin)</th>")
        .contains("<td class=\"due\">");
  }

  @Test
  void missingCalendar_isNamedOnThePageAndInJson_notAnError() throws Exception {
    HttpResponse<String> r = get("/job?key=orphan");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("<p class=\"warn\" id=\"calendar-problem\">calendar &#39;gone&#39; is not stored")
        .contains("<tr class=\"fire\"><td>2026-01-02 09:00:00 CET</td>");
    assertThat(r.body().split("<tr class=\"fire\">", -1)).hasSize(2);
    assertThat(json("/api/job?key=orphan").get("calendarProblem").asText())
        .startsWith("calendar 'gone' is not stored");
  }

  @Test
  void calendarsPage_listsEachCalendarInWords_escaped() throws Exception {
    HttpResponse<String> r = get("/calendars");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("<a href=\"/calendars\">Calendars</a>")
        .contains(
            "<tr id=\"cal-berlin-desk\"><td class=\"name\">berlin-desk</td><td>Europe/Berlin</td>"
                + "<td>Monday to Friday, except 2026-01-06 (Europe/Berlin)</td>"
                + "<td class=\"jobs\">2</td></tr>")
        .contains("<td>Monday to Friday, 08:00 to 18:00 (Europe/Berlin)</td>")
        .contains(
            "<td class=\"name\">&lt;b&gt;bold&lt;/b&gt;</td><td>UTC</td>"
                + "<td>every day; only the last business day of each month (UTC)</td>"
                + "<td class=\"jobs\">0</td>")
        .contains("3 calendar(s)")
        .doesNotContain("<b>bold", "cal-gone");
  }

  @Test
  void calendarsJson_listsTheSameCalendars() throws Exception {
    JsonNode a = json("/api/calendars");
    assertThat(a)
        .extracting(n -> n.get("name").asText())
        .containsExactly(CalendarFixture.XSS_CALENDAR, "berlin-desk", "desk-hours");
    JsonNode desk = a.get(1);
    assertThat(desk.get("zone").asText()).isEqualTo("Europe/Berlin");
    assertThat(desk.get("days"))
        .extracting(JsonNode::asText)
        .containsExactly("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY");
    assertThat(desk.get("excludedDates"))
        .extracting(JsonNode::asText)
        .containsExactly("2026-01-06");
    assertThat(desk.get("jobs").asLong()).isEqualTo(2);
    assertThat(a.get(2).get("from").asText()).isEqualTo("08:00");
    assertThat(a.get(0).get("lastBusinessDayOfMonth").asBoolean()).isTrue();
  }

  @Test
  void badRequests_areRefusedAsElsewhere() throws Exception {
    assertThat(get("/calendars?name=x").statusCode()).isEqualTo(400);
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(dashboard.uri().resolve("/api/calendars"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(JobJson.mapper().readTree(post.body()).get("error").asText()).contains("use GET");
    HttpResponse<String> unknown = get("/job?key=nope");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("no job &#39;nope&#39;");
  }
}
