package dev.kairos.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.kairos.JobInfo;
import dev.kairos.JobState;
import dev.kairos.KairosException;
import dev.kairos.RunRecord;
import dev.kairos.Scheduler;
import dev.kairos.engine.CronPreview;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the dashboard's pages and JSON API. One request: check who may ask (loopback and host name
 * without an auth hook, else the hook), parse its parameters strictly, answer; an action also needs
 * POST, a CSRF token, an origin of this dashboard and a writable dashboard, and is logged with its
 * user.
 *
 * <p>Routes, relative to the context path: GET {@code /}, {@code /job?key=}, {@code /instances},
 * {@code /calendars}, {@code /limits}, {@code /confirm?key=&action=}; POST {@code /action} (form:
 * key, action, csrf). JSON: GET {@code /api/jobs}, {@code /api/job?key=}, {@code
 * /api/history?key=&limit=}, {@code /api/instances}, {@code /api/calendars}, {@code /api/limits},
 * {@code /api/csrf}; POST {@code /api/pause|resume|trigger|unschedule?key=} with header {@code
 * X-Kairos-Csrf}.
 */
final class Router implements HttpHandler {
  private static final Logger log = LoggerFactory.getLogger(KairosDashboard.class);

  /** Action names and their button labels, in display order. */
  static final Map<String, String> ACTIONS = new LinkedHashMap<>();

  static {
    ACTIONS.put("pause", "Pause");
    ACTIONS.put("resume", "Resume");
    ACTIONS.put("trigger", "Trigger now");
    ACTIONS.put("unschedule", "Unschedule");
  }

  /** The CSRF token header for the JSON API. */
  static final String CSRF_HEADER = "X-Kairos-Csrf";

  private static final int NEXT_FIRES = 10;
  private static final int HISTORY = 50;
  private static final Pattern LOCAL_HOST =
      Pattern.compile(
          "(localhost|127\\.0\\.0\\.1|\\[::1\\])(:\\d{1,5})?", Pattern.CASE_INSENSITIVE);

  private final Scheduler scheduler;
  private final DashboardAuth auth;
  private final boolean readOnly;
  private final Supplier<Map<String, Instant>> instances;
  private final ZoneId zone;
  private final Clock clock;
  private final Csrf csrf = new Csrf();

  Router(
      Scheduler scheduler,
      DashboardAuth auth,
      boolean readOnly,
      Supplier<Map<String, Instant>> instances,
      ZoneId zone,
      Clock clock) {
    this.scheduler = scheduler;
    this.auth = auth;
    this.readOnly = readOnly;
    this.instances = instances;
    this.zone = zone;
    this.clock = clock;
  }

  /** One request as routed: method, path below the context, base for links, the user. */
  private record Call(HttpExchange x, String method, String path, String base, String user) {
    boolean api() {
      return path.startsWith("/api/");
    }

    Pages.Context page(boolean readOnly, ZoneId zone) {
      return new Pages.Context(base, user, readOnly, zone);
    }
  }

  @Override
  public void handle(HttpExchange x) throws IOException {
    String base = x.getHttpContext().getPath();
    base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    String raw = x.getRequestURI().getRawPath();
    String path = raw.length() <= base.length() ? "/" : raw.substring(base.length());
    Call call = new Call(x, x.getRequestMethod(), path, base, "?");
    try {
      call = new Call(x, call.method(), path, base, authenticate(x));
      route(call);
    } catch (Problem p) {
      if (p.status == 401 || p.status == 403) {
        log.info(
            "dashboard: refused {} {} by '{}' from {}: {}",
            call.method(),
            path,
            call.user(),
            x.getRemoteAddress(),
            p.getMessage());
      }
      fail(call, p.status, p.getMessage());
    } catch (IllegalArgumentException e) {
      fail(call, 400, e.getMessage());
    } catch (KairosException e) {
      log.warn("dashboard: {} {} failed: {}", call.method(), path, e.toString());
      fail(call, 503, "the scheduler or its store failed: " + e.getMessage());
    } catch (RuntimeException e) {
      log.error("dashboard: {} {} failed", call.method(), path, e);
      fail(call, 500, "internal error (logged on the server)");
    } finally {
      x.close();
    }
  }

  // ---- who may ask -----------------------------------------------------------------------------

  private String authenticate(HttpExchange x) {
    if (auth == null) {
      InetSocketAddress remote = x.getRemoteAddress();
      if (remote == null || !remote.getAddress().isLoopbackAddress()) {
        throw new Problem(403, "this dashboard serves local clients only (no auth hook set)");
      }
      String host = x.getRequestHeaders().getFirst("Host");
      if (host == null || !LOCAL_HOST.matcher(host).matches()) {
        throw new Problem(
            403, "host name must be localhost, 127.0.0.1 or [::1] (no auth hook set)");
      }
      return "local";
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    x.getRequestHeaders()
        .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
    DashboardRequest request =
        new DashboardRequest(
            x.getRequestMethod(), x.getRequestURI().getPath(), headers, x.getRemoteAddress());
    Optional<String> user = auth.user(request);
    if (user.isEmpty()) {
      auth.challenge().ifPresent(c -> x.getResponseHeaders().set("WWW-Authenticate", c));
      throw new Problem(401, "authentication required");
    }
    return user.get();
  }

  // ---- routes ----------------------------------------------------------------------------------

  private void route(Call c) throws IOException {
    String query = c.x().getRequestURI().getRawQuery();
    switch (c.path()) {
      case "/" -> jobsPage(c, get(c, query, "q", "handler", "state", "sort"));
      case "/job" -> jobPage(c, get(c, query, "key", "done"));
      case "/instances" -> instancesPage(c, get(c, query));
      case "/calendars" -> calendarsPage(c, get(c, query));
      case "/limits" -> limitsPage(c, get(c, query));
      case "/confirm" -> confirmPage(c, get(c, query, "key", "action"));
      case "/action" -> formAction(c);
      case "/api/jobs" -> json(c, 200, apiJobs(get(c, query, "q", "handler", "state", "sort")));
      case "/api/job" -> json(c, 200, apiJob(get(c, query, "key")));
      case "/api/history" -> json(c, 200, apiHistory(get(c, query, "key", "limit")));
      case "/api/instances" -> json(c, 200, apiInstances(get(c, query)));
      case "/api/calendars" -> json(c, 200, apiCalendars(get(c, query)));
      case "/api/limits" -> json(c, 200, apiLimits(get(c, query)));
      case "/api/csrf" -> {
        get(c, query);
        json(c, 200, JobJson.mapper().createObjectNode().put("token", csrf.token(c.user())));
      }
      default -> {
        if (c.path().startsWith("/api/") && ACTIONS.containsKey(c.path().substring(5))) {
          apiAction(c, c.path().substring(5), query);
        } else {
          throw new Problem(404, "no such page: " + c.path());
        }
      }
    }
  }

  /** Checks the method is GET (or HEAD) and parses the query with the allowed names. */
  private static Params get(Call c, String query, String... allowed) {
    if (!c.method().equals("GET") && !c.method().equals("HEAD")) {
      c.x().getResponseHeaders().set("Allow", "GET, HEAD");
      throw new Problem(405, c.method() + " is not allowed here; use GET");
    }
    return Params.parse(query, Set.of(allowed));
  }

  private List<JobInfo> filteredJobs(Params p) {
    String q = p.get("q").orElse("");
    Optional<String> handler = p.get("handler");
    Optional<JobState> state = p.get("state").map(Router::state);
    String sort = p.get("sort").orElse("next");
    if (!sort.equals("next") && !sort.equals("key")) {
      throw new Problem(400, "parameter 'sort' must be next or key");
    }
    Comparator<JobInfo> byNext =
        Comparator.comparing(
            JobInfo::nextFireTime, Comparator.nullsLast(Comparator.naturalOrder()));
    return scheduler.jobs().stream()
        .filter(j -> j.key().contains(q))
        .filter(j -> handler.isEmpty() || handler.get().equals(j.spec().handler()))
        .filter(j -> state.isEmpty() || state.get() == j.state())
        .sorted(sort.equals("key") ? Comparator.comparing(JobInfo::key) : byNext)
        .toList();
  }

  private static JobState state(String s) {
    try {
      return JobState.valueOf(s);
    } catch (IllegalArgumentException e) {
      throw new Problem(
          400, "parameter 'state' must be one of SCHEDULED, PAUSED, RUNNING, COMPLETE");
    }
  }

  private JobInfo job(String key) {
    return scheduler.job(key).orElseThrow(() -> new Problem(404, "no job '" + key + "'"));
  }

  private void jobsPage(Call c, Params p) throws IOException {
    html(
        c,
        200,
        Pages.jobs(
            c.page(readOnly, zone),
            filteredJobs(p),
            p.get("q").orElse(""),
            p.get("handler").orElse(""),
            p.get("state").orElse(""),
            p.get("sort").orElse("next")));
  }

  private void jobPage(Call c, Params p) throws IOException {
    JobInfo j = job(p.required("key"));
    String done = p.get("done").map(Router::doneMessage).orElse(null);
    List<RunRecord> history = scheduler.history(j.key(), HISTORY);
    html(c, 200, Pages.job(c.page(readOnly, zone), j, upcoming(j), history, done));
  }

  private Schedules.Upcoming upcoming(JobInfo j) {
    return Schedules.upcoming(j, scheduler::calendar, NEXT_FIRES);
  }

  /** How many stored jobs are attached to each calendar, by calendar name. */
  private Map<String, Long> attached() {
    return scheduler.jobs().stream()
        .filter(j -> j.spec().calendar().isPresent())
        .collect(Collectors.groupingBy(j -> j.spec().calendar().get(), Collectors.counting()));
  }

  private void calendarsPage(Call c, Params p) throws IOException {
    html(c, 200, Pages.calendars(c.page(readOnly, zone), scheduler.calendars(), attached()));
  }

  private void limitsPage(Call c, Params p) throws IOException {
    html(c, 200, Pages.limits(c.page(readOnly, zone), scheduler.limits()));
  }

  private static String doneMessage(String action) {
    return switch (action) {
      case "pause" -> "Paused.";
      case "resume" -> "Resumed.";
      case "trigger" -> "Triggered: the run will appear in the history below when it ends.";
      default -> throw new Problem(400, "parameter 'done' must be pause, resume or trigger");
    };
  }

  private void instancesPage(Call c, Params p) throws IOException {
    html(
        c,
        200,
        Pages.instances(
            c.page(readOnly, zone), instances == null ? null : instances.get(), clock.instant()));
  }

  private void confirmPage(Call c, Params p) throws IOException {
    String action = action(p.required("action"));
    writable();
    JobInfo j = job(p.required("key"));
    html(c, 200, Pages.confirm(c.page(readOnly, zone), j, action, csrf.token(c.user())));
  }

  private void formAction(Call c) throws IOException {
    if (!c.method().equals("POST")) {
      c.x().getResponseHeaders().set("Allow", "POST");
      throw new Problem(405, c.method() + " is not allowed here; use POST");
    }
    if (c.x().getRequestURI().getRawQuery() != null) {
      throw new Problem(400, "an action takes its parameters in the form body, not the query");
    }
    String type = c.x().getRequestHeaders().getFirst("Content-Type");
    if (type == null
        || !type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
      throw new Problem(415, "an action needs an application/x-www-form-urlencoded form");
    }
    Params form = Params.parse(Responses.readBody(c.x()), Set.of("key", "action", "csrf"));
    String action = action(form.required("action"));
    checkAction(c, form.get("csrf").orElse(null));
    String key = form.required("key");
    if (!perform(c, action, key)) {
      throw new Problem(404, "no job '" + key + "'");
    }
    String to =
        action.equals("unschedule")
            ? c.base() + "/"
            : c.base()
                + "/job?key="
                + URLEncoder.encode(key, StandardCharsets.UTF_8)
                + "&done="
                + action;
    c.x().getResponseHeaders().set("Location", to);
    Responses.send(c.x(), 303, "text/plain; charset=utf-8", "done: " + action);
  }

  private void apiAction(Call c, String action, String query) throws IOException {
    if (!c.method().equals("POST")) {
      c.x().getResponseHeaders().set("Allow", "POST");
      throw new Problem(405, c.method() + " is not allowed here; use POST");
    }
    Params p = Params.parse(query, Set.of("key"));
    if (!Responses.readBody(c.x()).isEmpty()) {
      throw new Problem(400, "an action takes no body; the key goes in the query");
    }
    checkAction(c, c.x().getRequestHeaders().getFirst(CSRF_HEADER));
    String key = p.required("key");
    if (!perform(c, action, key)) {
      throw new Problem(404, "no job '" + key + "'");
    }
    ObjectNode out = JobJson.mapper().createObjectNode().put("key", key).put("action", action);
    scheduler.job(key).ifPresent(j -> out.put("state", j.state().name()));
    json(c, 200, out);
  }

  private static String action(String name) {
    if (!ACTIONS.containsKey(name)) {
      throw new Problem(400, "unknown action '" + name + "' (pause, resume, trigger, unschedule)");
    }
    return name;
  }

  private void writable() {
    if (readOnly) {
      throw new Problem(403, "this dashboard is read-only");
    }
  }

  /** Read-only mode, CSRF token, and (when the browser says) the request's origin. */
  private void checkAction(Call c, String token) {
    writable();
    String host = c.x().getRequestHeaders().getFirst("Host");
    String origin = c.x().getRequestHeaders().getFirst("Origin");
    if (origin != null && !origin.equals("http://" + host) && !origin.equals("https://" + host)) {
      throw new Problem(403, "cross-origin action refused (Origin " + origin + ")");
    }
    if ("cross-site".equals(c.x().getRequestHeaders().getFirst("Sec-Fetch-Site"))) {
      throw new Problem(403, "cross-site action refused");
    }
    if (!csrf.valid(c.user(), token)) {
      throw new Problem(403, "missing or invalid CSRF token (get one from /api/csrf)");
    }
  }

  private boolean perform(Call c, String action, String key) {
    boolean known =
        switch (action) {
          case "pause" -> scheduler.pause(key);
          case "resume" -> scheduler.resume(key);
          case "trigger" -> scheduler.triggerNow(key);
          default -> scheduler.unschedule(key);
        };
    log.info(
        "dashboard: {} by '{}' from {} on job '{}': {}",
        action,
        c.user(),
        c.x().getRemoteAddress(),
        key,
        known ? "done" : "no such job");
    return known;
  }

  // ---- JSON ------------------------------------------------------------------------------------

  private ArrayNode apiJobs(Params p) {
    ArrayNode a = JobJson.mapper().createArrayNode();
    filteredJobs(p).forEach(j -> a.add(JobJson.job(j)));
    return a;
  }

  private ObjectNode apiJob(Params p) {
    JobInfo j = job(p.required("key"));
    ObjectNode n = JobJson.job(j);
    Schedules.Upcoming next = upcoming(j);
    n.set(
        "nextFires", JobJson.instants(next.fires().stream().map(CronPreview.Fire::fire).toList()));
    n.set("upcoming", JobJson.fires(next.fires(), j.spec().calendarPolicy()));
    next.problem().ifPresent(problem -> n.put("calendarProblem", problem));
    return n;
  }

  private ArrayNode apiHistory(Params p) {
    String key = p.required("key");
    int limit = p.integer("limit", HISTORY, 1, 1000);
    job(key);
    ArrayNode a = JobJson.mapper().createArrayNode();
    scheduler.history(key, limit).forEach(r -> a.add(JobJson.run(r)));
    return a;
  }

  private ArrayNode apiCalendars(Params p) {
    Map<String, Long> jobs = attached();
    ArrayNode a = JobJson.mapper().createArrayNode();
    scheduler
        .calendars()
        .forEach((name, cal) -> a.add(JobJson.calendar(name, cal, jobs.getOrDefault(name, 0L))));
    return a;
  }

  private ArrayNode apiLimits(Params p) {
    ArrayNode a = JobJson.mapper().createArrayNode();
    scheduler.limits().forEach(l -> a.add(JobJson.limit(l)));
    return a;
  }

  private JsonNode apiInstances(Params p) {
    if (instances == null) {
      throw new Problem(404, "instances are not known to this dashboard (no instances source)");
    }
    ArrayNode a = JobJson.mapper().createArrayNode();
    instances.get().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                a.addObject()
                    .put("instance", e.getKey())
                    .put("lastHeartbeat", e.getValue().toString()));
    return a;
  }

  // ---- responses -------------------------------------------------------------------------------

  private void fail(Call c, int status, String message) throws IOException {
    if (c.api()) {
      json(c, status, JobJson.mapper().createObjectNode().put("error", message));
    } else {
      html(c, status, Pages.error(c.page(readOnly, zone), status, message));
    }
  }

  private static void html(Call c, int status, String body) throws IOException {
    Responses.send(c.x(), status, "text/html; charset=utf-8", body);
  }

  private static void json(Call c, int status, JsonNode body) throws IOException {
    Responses.json(c.x(), status, body);
  }
}
