package dev.kairos.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kairos.JobSpec;
import dev.kairos.LimitStatus;
import dev.kairos.Scheduler;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The concurrency limits over HTTP: the limits page and {@code /api/limits} show each limit's
 * handlers and permits beside the permits held and the fires waiting on this instance, with names
 * escaped. Three {@code export} fires are due under a limit of 2; their runs block until the test
 * ends.
 */
class DashboardLimitsTest {
  /** A group name that would be markup if it reached a page unescaped. */
  private static final String XSS_GROUP = "<b>crm</b>";

  private static final Instant T0 = Instant.parse("2026-03-02T08:00:00Z");

  private final ManualClock clock = new ManualClock(T0);
  private final CountDownLatch release = new CountDownLatch(1);
  private final HttpClient http = HttpClient.newHttpClient();
  private Scheduler scheduler;
  private KairosDashboard dashboard;

  @BeforeEach
  void start() {
    scheduler =
        Kairos.builder()
            .store(new InMemoryStore())
            .clock(clock)
            .workers(4)
            .gracePeriod(Duration.ofSeconds(1))
            .handler("export", ctx -> release.await())
            .handler("crm-pull", ctx -> {})
            .handler("crm-push", ctx -> {})
            .maxConcurrent("export", 2)
            .maxConcurrent(XSS_GROUP, 1, "crm-push", "crm-pull")
            .build();
    scheduler.start();
    for (int i = 1; i <= 3; i++) {
      scheduler.schedule(JobSpec.named("export-" + i).handler("export").at(T0.plusMillis(i)));
    }
    clock.advance(Duration.ofSeconds(1));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> scheduler.limits().stream().anyMatch(l -> l.waiting() == 1));
    dashboard = KairosDashboard.builder(scheduler).port(0).start();
  }

  @AfterEach
  void tearDown() {
    release.countDown();
    if (dashboard != null) {
      dashboard.close();
    }
    scheduler.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(dashboard.uri().resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void limitsPage_showsEachLimitWithItsCounts_escaped() throws Exception {
    HttpResponse<String> r = get("/limits");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("<a href=\"/limits\">Limits</a>")
        .contains("2 limit(s)")
        .contains(
            "<tr id=\"limit-%3Cb%3Ecrm%3C%2Fb%3E\"><td class=\"name\">&lt;b&gt;crm&lt;/b&gt;</td>"
                + "<td class=\"handlers\">crm-pull, crm-push</td><td class=\"permits\">1</td>"
                + "<td class=\"running\">0</td><td class=\"waiting\">0</td></tr>")
        .contains(
            "<tr id=\"limit-export\"><td class=\"name\">export</td>"
                + "<td class=\"handlers\">export</td><td class=\"permits\">2</td>"
                + "<td class=\"running\">2</td><td class=\"waiting\">1</td></tr>")
        .contains("in cluster mode, runs on other instances are not counted")
        .doesNotContain("<b>crm");
  }

  @Test
  void limitsJson_listsTheSameLimits_orderedByName() throws Exception {
    HttpResponse<String> r = get("/api/limits");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode a = JobJson.mapper().readTree(r.body());
    assertThat(a).extracting(n -> n.get("name").asText()).containsExactly(XSS_GROUP, "export");
    JsonNode export = a.get(1);
    assertThat(export.get("permits").asInt()).isEqualTo(2);
    assertThat(export.get("running").asInt()).isEqualTo(2);
    assertThat(export.get("waiting").asInt()).isEqualTo(1);
    assertThat(export.get("handlers")).extracting(JsonNode::asText).containsExactly("export");
    assertThat(a.get(0).get("handlers"))
        .extracting(JsonNode::asText)
        .containsExactly("crm-pull", "crm-push");
  }

  @Test
  void limitJson_hasExactlyTheStatusFields() {
    JsonNode n = JobJson.limit(new LimitStatus("g", 3, Set.of("b", "a"), 1, 4));
    assertThat(n.toString())
        .isEqualTo(
            "{\"name\":\"g\",\"permits\":3,\"handlers\":[\"a\",\"b\"],\"running\":1,\"waiting\":4}");
  }

  @Test
  void withoutLimits_pageSaysNoneAndJsonIsEmpty() throws Exception {
    try (Fixture plain = new Fixture();
        KairosDashboard other = KairosDashboard.builder(plain.scheduler).port(0).start()) {
      HttpResponse<String> page =
          http.send(
              HttpRequest.newBuilder(other.uri().resolve("/limits")).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(page.body()).contains("0 limit(s)").contains("none configured on this scheduler");
      HttpResponse<String> json =
          http.send(
              HttpRequest.newBuilder(other.uri().resolve("/api/limits")).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(JobJson.mapper().readTree(json.body())).isEmpty();
    }
  }

  @Test
  void badRequests_areRefusedAsElsewhere() throws Exception {
    assertThat(get("/limits?name=export").statusCode()).isEqualTo(400);
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(dashboard.uri().resolve("/api/limits"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(JobJson.mapper().readTree(post.body()).get("error").asText()).contains("use GET");
  }
}
