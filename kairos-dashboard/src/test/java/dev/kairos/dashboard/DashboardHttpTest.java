package dev.kairos.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.kairos.JobState;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The dashboard over HTTP: escaping, CSRF, read-only mode, the auth hook, strict requests. */
class DashboardHttpTest {
  private final Fixture fixture = new Fixture();
  private final HttpClient http = HttpClient.newHttpClient();
  private KairosDashboard dashboard;

  @AfterEach
  void tearDown() {
    if (dashboard != null) {
      dashboard.close();
    }
    fixture.close();
  }

  private KairosDashboard start(KairosDashboard.Builder b) {
    dashboard = b.port(0).start();
    return dashboard;
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(dashboard.uri().resolve(path)).GET();
    if (headers.length > 0) {
      r.headers(headers);
    }
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String form, String... headers) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(dashboard.uri().resolve(path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    if (headers.length > 0) {
      r.headers(headers);
    }
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private String token(String... headers) throws Exception {
    return JobJson.mapper().readTree(get("/api/csrf", headers).body()).get("token").asText();
  }

  private JobState state(String key) {
    return fixture.scheduler.job(key).orElseThrow().state();
  }

  @Test
  void jobsPage_listsEveryJob_withKeysEscaped() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler));
    HttpResponse<String> r = get("/");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Security-Policy").orElseThrow())
        .startsWith("default-src 'none'");
    assertThat(r.body())
        .contains("nightly-report", "purge a/b&amp;c=d", "&lt;script&gt;alert(&#39;key&#39;)")
        .contains("at 02:00")
        .doesNotContain("<script>");
  }

  @Test
  void jobPage_showsTenNextFiresAndEscapedErrorText() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler));
    fixture.scheduler.triggerNow(Fixture.XSS_KEY);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !fixture.scheduler.history(Fixture.XSS_KEY, 1).isEmpty());
    String body = get("/job?key=" + enc(Fixture.XSS_KEY)).body();
    assertThat(body)
        .contains("&lt;img src=x onerror=alert(&#39;error&#39;)&gt;", "FAILURE")
        .contains("<th>recovery</th><th>missed fires</th>")
        .doesNotContain("<img", "<script>");
    String nightly = get("/job?key=nightly-report").body();
    assertThat(nightly.split("<td>[0-9-]{10} 0[23]:00:00 CES?T</td>", -1)).hasSize(11);
  }

  @Test
  void formAction_withoutOrWithWrongCsrfToken_isRefusedAndChangesNothing() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler));
    HttpResponse<String> none = post("/action", "key=nightly-report&action=pause");
    HttpResponse<String> wrong = post("/action", "key=nightly-report&action=pause&csrf=forged");
    assertThat(none.statusCode()).isEqualTo(403);
    assertThat(none.body()).contains("CSRF");
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(state("nightly-report")).isEqualTo(JobState.SCHEDULED);

    HttpResponse<String> ok =
        post("/action", "key=nightly-report&action=pause&csrf=" + enc(token()));
    assertThat(ok.statusCode()).isEqualTo(303);
    assertThat(ok.headers().firstValue("Location").orElseThrow())
        .isEqualTo("/job?key=nightly-report&done=pause");
    assertThat(state("nightly-report")).isEqualTo(JobState.PAUSED);
  }

  @Test
  void action_fromAnotherOrigin_isRefusedEvenWithToken() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler));
    HttpResponse<String> r =
        post(
            "/action",
            "key=nightly-report&action=pause&csrf=" + enc(token()),
            "Origin",
            "http://evil.example");
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(state("nightly-report")).isEqualTo(JobState.SCHEDULED);
  }

  @Test
  void jsonAction_needsCsrfHeader() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler));
    HttpRequest.Builder r =
        HttpRequest.newBuilder(dashboard.uri().resolve("/api/pause?key=nightly-report"))
            .POST(HttpRequest.BodyPublishers.noBody());
    HttpResponse<String> refused = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(JobJson.mapper().readTree(refused.body()).get("error").asText()).contains("CSRF");

    HttpResponse<String> ok =
        http.send(
            r.header(Router.CSRF_HEADER, token()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(JobJson.mapper().readTree(ok.body()).get("state").asText()).isEqualTo("PAUSED");
  }

  @Test
  void jsonApi_jobsJobAndHistory() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler));
    JsonNode jobs = JobJson.mapper().readTree(get("/api/jobs?sort=key").body());
    assertThat(jobs).hasSize(3);
    assertThat(jobs.get(0).get("key").asText()).isEqualTo(Fixture.XSS_KEY);
    JsonNode job = JobJson.mapper().readTree(get("/api/job?key=nightly-report").body());
    assertThat(job.get("nextFires")).hasSize(10);
    assertThat(job.get("spec").get("schedule").get("zone").asText()).isEqualTo("Europe/Berlin");
    assertThat(JobJson.readSpec(job.get("spec")))
        .isEqualTo(fixture.scheduler.job("nightly-report").orElseThrow().spec());
    assertThat(JobJson.mapper().readTree(get("/api/history?key=nightly-report").body())).isEmpty();
    assertThat(JobJson.mapper().readTree(get("/api/jobs?state=PAUSED").body())).isEmpty();
  }

  @Test
  void readOnly_refusesActionsAndShowsNone() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler).readOnly(true));
    assertThat(get("/job?key=nightly-report").body())
        .contains("read-only")
        .doesNotContain("/confirm");
    assertThat(get("/confirm?key=nightly-report&action=pause").statusCode()).isEqualTo(403);
    HttpResponse<String> r =
        post("/action", "key=nightly-report&action=pause&csrf=" + enc(token()));
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).contains("read-only");
    assertThat(state("nightly-report")).isEqualTo(JobState.SCHEDULED);
  }

  @Test
  void authHook_refusesUnauthenticatedRequestsAndActions() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler).auth(DashboardAuth.basic("ops", "s3cret")));
    String basic =
        "Basic "
            + Base64.getEncoder().encodeToString("ops:s3cret".getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> anonymous = get("/");
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().firstValue("WWW-Authenticate"))
        .hasValue("Basic realm=\"Kairos\", charset=\"UTF-8\"");
    assertThat(get("/", "Authorization", "Basic b3BzOndyb25n").statusCode()).isEqualTo(401);
    assertThat(get("/", "Authorization", basic).body()).contains("ops");

    String token = token("Authorization", basic);
    HttpResponse<String> refused =
        post("/action", "key=nightly-report&action=pause&csrf=" + enc(token));
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(state("nightly-report")).isEqualTo(JobState.SCHEDULED);
    assertThat(
            post(
                    "/action",
                    "key=nightly-report&action=pause&csrf=" + enc(token),
                    "Authorization",
                    basic)
                .statusCode())
        .isEqualTo(303);
    assertThat(state("nightly-report")).isEqualTo(JobState.PAUSED);
  }

  @Test
  void csrfToken_isPerUser() throws Exception {
    start(
        KairosDashboard.builder(fixture.scheduler)
            .auth(r -> r.header("X-User").filter(u -> !u.isBlank())));
    String aliceToken = token("X-User", "alice");
    HttpResponse<String> r =
        post(
            "/action",
            "key=nightly-report&action=pause&csrf=" + enc(aliceToken),
            "X-User",
            "mallory");
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(state("nightly-report")).isEqualTo(JobState.SCHEDULED);
  }

  @Test
  void badRequests_areRefusedWithOneClearLine() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler));
    assertThat(get("/?colour=red").body()).contains("unknown parameter &#39;colour&#39;");
    assertThat(get("/?colour=red").statusCode()).isEqualTo(400);
    assertThat(get("/job?key=a&key=b").statusCode()).isEqualTo(400);
    assertThat(get("/job").body()).contains("missing parameter &#39;key&#39;");
    assertThat(get("/job?key=").body()).contains("empty parameter &#39;key&#39;");
    assertThat(raw("GET /job?key=%zz HTTP/1.1", "localhost"))
        .startsWith("HTTP/1.1 400")
        .doesNotContain("Exception in");
    assertThat(get("/?state=SLEEPING").statusCode()).isEqualTo(400);
    assertThat(get("/api/history?key=nightly-report&limit=abc").body())
        .contains("\"error\" : \"parameter 'limit' must be an integer from 1 to 1000\"");
    assertThat(get("/api/job?key=nope").statusCode()).isEqualTo(404);
    assertThat(get("/confirm?key=nightly-report&action=explode").statusCode()).isEqualTo(400);
    assertThat(get("/action").statusCode()).isEqualTo(405);
    assertThat(get("/nowhere").statusCode()).isEqualTo(404);
    HttpResponse<String> json =
        post(
            "/action",
            "{\"key\":\"nightly-report\"}",
            "Content-Type",
            "application/json; charset=utf-8");
    assertThat(json.statusCode()).isIn(400, 415);
  }

  @Test
  void withoutAuthHook_foreignHostNameIsRefused() throws Exception {
    start(KairosDashboard.builder(fixture.scheduler));
    assertThat(raw("GET / HTTP/1.1", "rebound.evil.example"))
        .startsWith("HTTP/1.1 403")
        .contains("host name must be localhost");
  }

  /** Sends a request as written, for what an HTTP client would refuse to send. */
  private String raw(String requestLine, String host) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), dashboard.port())) {
      OutputStream out = s.getOutputStream();
      out.write(
          (requestLine + "\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void instancesPage_andJson_showTheSuppliedInstances() throws Exception {
    start(
        KairosDashboard.builder(fixture.scheduler)
            .instances(() -> java.util.Map.of("<b>node</b>", java.time.Instant.EPOCH)));
    assertThat(get("/instances").body())
        .contains("&lt;b&gt;node&lt;/b&gt;", "1970-01-01 00:00:00Z");
    JsonNode a = JobJson.mapper().readTree(get("/api/instances").body());
    assertThat(a.get(0).get("instance").asText()).isEqualTo("<b>node</b>");
  }

  @Test
  void withoutAuthHook_nonLoopbackBindIsRefused() {
    assertThatThrownBy(
            () -> KairosDashboard.builder(fixture.scheduler).bindAddress("0.0.0.0").port(0).start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("set an auth hook");
  }

  @Test
  void handler_mountedAtContextPath_prefixesLinks() throws IOException, InterruptedException {
    HttpServer own =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    own.createContext("/ops/kairos", KairosDashboard.builder(fixture.scheduler).handler());
    own.start();
    try {
      URI uri = URI.create("http://localhost:" + own.getAddress().getPort() + "/ops/kairos/");
      HttpResponse<String> r =
          http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("href=\"/ops/kairos/job?key=nightly-report\"");
    } finally {
      own.stop(0);
    }
  }
}
