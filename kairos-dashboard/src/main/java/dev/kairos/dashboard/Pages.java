package dev.kairos.dashboard;

import static dev.kairos.dashboard.Html.esc;
import static dev.kairos.dashboard.Html.param;

import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.LimitStatus;
import dev.kairos.RunRecord;
import dev.kairos.engine.CronPreview;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * The dashboard's HTML, rendered on the server. Every value that comes from a job or a request
 * passes through {@link Html#esc}; pages hold no script (the Content-Security-Policy forbids it).
 */
final class Pages {
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z");
  private static final DateTimeFormatter UTC =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
  private static final String STYLE =
      "body{font:14px system-ui,sans-serif;margin:0 1.5em 2em;color:#222}"
          + "nav{padding:.6em 0;border-bottom:1px solid #ddd;margin-bottom:1em}"
          + "nav a{margin-right:1.2em}table{border-collapse:collapse;margin:.5em 0 1.5em}"
          + "th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}"
          + "th{background:#f3f3f3}.FAILURE{color:#c62828}.SUCCESS{color:#2e7d32}"
          + ".PAUSED{color:#ef6c00;font-weight:bold}.msg{background:#e8f5e9;padding:.5em}"
          + "form.inline{display:inline}code{white-space:pre-wrap;word-break:break-all}"
          + ".actions a{margin-right:1em}.warn{background:#fff3e0;padding:.5em}"
          + "tr.skipped td{color:#888;text-decoration:line-through}tr.moved td{color:#ef6c00}";

  /** Everything a page needs besides its own data. */
  record Context(String base, String user, boolean readOnly, ZoneId zone) {}

  private Pages() {}

  static String jobs(
      Context c, List<JobInfo> jobs, String q, String handler, String state, String sort) {
    StringBuilder b = head(c, "Jobs");
    b.append("<h1>Jobs</h1><form method=\"get\" action=\"")
        .append(esc(c.base()))
        .append("/\" id=\"filter\">key contains <input name=\"q\" value=\"")
        .append(esc(q))
        .append("\"> handler <input name=\"handler\" value=\"")
        .append(esc(handler))
        .append("\"> state <select name=\"state\"><option value=\"\">any</option>");
    for (JobState s : JobState.values()) {
      b.append("<option")
          .append(s.name().equals(state) ? " selected" : "")
          .append(">")
          .append(s.name())
          .append("</option>");
    }
    b.append("</select> sort <select name=\"sort\">")
        .append("<option value=\"next\"")
        .append("key".equals(sort) ? "" : " selected")
        .append(">next fire</option><option value=\"key\"")
        .append("key".equals(sort) ? " selected" : "")
        .append(">key</option></select> <button>Filter</button></form>");
    b.append("<p>")
        .append(jobs.size())
        .append(" job(s)</p><table id=\"jobs\"><tr><th>key</th><th>handler</th><th>schedule</th>")
        .append("<th>misfire</th><th>next fire (job's zone)</th><th>next fire (UTC)</th>")
        .append("<th>last outcome</th><th>failures</th><th>state</th></tr>");
    for (JobInfo j : jobs) {
      ZoneId zone = Schedules.zoneOf(j.spec(), c.zone());
      b.append("<tr><td><a class=\"job\" href=\"")
          .append(jobHref(c, j.key()))
          .append("\">")
          .append(esc(j.key()))
          .append("</a></td><td>")
          .append(esc(j.spec().handler()))
          .append("</td><td>")
          .append(esc(Schedules.describe(j.spec().schedule())))
          .append("</td><td>")
          .append(esc(Schedules.describe(j.spec().misfire())))
          .append("</td><td>")
          .append(local(j.nextFireTime(), zone))
          .append("</td><td>")
          .append(utc(j.nextFireTime()))
          .append("</td><td class=\"")
          .append(j.lastOutcome() == null ? "" : j.lastOutcome().name())
          .append("\">")
          .append(j.lastOutcome() == null ? "" : j.lastOutcome().name())
          .append("</td><td>")
          .append(j.failureCount())
          .append("</td><td class=\"state ")
          .append(j.state().name())
          .append("\">")
          .append(j.state().name())
          .append("</td></tr>");
    }
    return foot(b.append("</table>"));
  }

  static String job(
      Context c, JobInfo j, Schedules.Upcoming next, List<RunRecord> history, String done) {
    JobSpec s = j.spec();
    ZoneId zone = Schedules.zoneOf(s, c.zone());
    StringBuilder b = head(c, "Job " + j.key());
    b.append("<h1>Job <span id=\"key\">").append(esc(j.key())).append("</span></h1>");
    if (done != null) {
      b.append("<p class=\"msg\" id=\"done\">").append(esc(done)).append("</p>");
    }
    b.append("<p>State: <strong id=\"state\" class=\"")
        .append(j.state().name())
        .append("\">")
        .append(j.state().name())
        .append("</strong></p>");
    if (!c.readOnly()) {
      b.append("<p class=\"actions\">");
      for (String action : actionsFor(j.state())) {
        b.append("<a id=\"")
            .append(action)
            .append("\" href=\"")
            .append(esc(c.base()))
            .append("/confirm?action=")
            .append(action)
            .append("&amp;key=")
            .append(param(j.key()))
            .append("\">")
            .append(Router.ACTIONS.get(action))
            .append("</a>");
      }
      b.append("</p>");
    }
    b.append("<h2>Definition</h2><table id=\"definition\">");
    row(b, "handler", esc(s.handler()));
    row(b, "schedule", esc(Schedules.describe(s.schedule())));
    row(b, "misfire", esc(Schedules.describe(s.misfire())));
    row(
        b,
        "retry",
        s.retry().maxAttempts() <= 1
            ? "none"
            : esc(
                s.retry().maxAttempts()
                    + " attempts, first after "
                    + Schedules.human(s.retry().initialDelay())));
    row(b, "start at", s.startAt().map(t -> utc(t)).orElse(""));
    row(b, "initial delay", esc(s.initialDelay().map(Schedules::human).orElse("")));
    row(b, "data", "<code>" + esc(s.data().orElse("")) + "</code>");
    row(b, "jitter", esc(s.jitter().map(d -> "up to " + Schedules.human(d)).orElse("none")));
    row(
        b,
        "calendar",
        s.calendar()
            .map(
                name ->
                    "<a id=\"calendar\" href=\""
                        + esc(c.base())
                        + "/calendars#cal-"
                        + param(name)
                        + "\">"
                        + esc(name)
                        + "</a>: "
                        + esc(Schedules.describe(s.calendarPolicy())))
            .orElse("none"));
    row(b, "runs / failures", j.runCount() + " / " + j.failureCount());
    row(
        b,
        "last run",
        j.lastStart() == null
            ? "never"
            : utc(j.lastStart())
                + ", "
                + (j.lastOutcome() == null ? "running" : j.lastOutcome().name()));
    row(b, "last error", "<code id=\"last-error\">" + esc(j.lastError()) + "</code>");
    b.append("</table>");
    nextFires(b, j, next, zone);
    b.append("<h2>Recent runs</h2>").append(Chart.svg(history));
    b.append("<table id=\"history\"><tr><th>scheduled</th><th>start</th><th>end</th>")
        .append("<th>duration</th><th>lateness</th><th>outcome</th><th>error</th>")
        .append("<th>attempt</th><th>instance</th><th>recovery</th><th>missed fires</th></tr>");
    for (RunRecord r : history) {
      b.append("<tr class=\"run\"><td>")
          .append(utc(r.scheduledFireTime()))
          .append("</td><td>")
          .append(utc(r.start()))
          .append("</td><td>")
          .append(utc(r.end()))
          .append("</td><td>")
          .append(millis(r.start(), r.end()))
          .append("</td><td>")
          .append(r.backfill() ? "backfill" : millis(r.scheduledFireTime(), r.start()))
          .append("</td><td class=\"")
          .append(r.outcome() == null ? "" : r.outcome().name())
          .append("\">")
          .append(r.outcome() == null ? "" : r.outcome().name())
          .append("</td><td><code>")
          .append(esc(r.error()))
          .append("</code></td><td>")
          .append(r.attempt())
          .append("</td><td>")
          .append(esc(r.instance()))
          .append("</td><td>")
          .append(r.recovery() ? "yes" : "")
          .append("</td><td>")
          .append(r.missedFires())
          .append("</td></tr>");
    }
    return foot(b.append("</table>"));
  }

  /**
   * The next-fires table: each fire (with its due time when the job has jitter) and before it the
   * slots the calendar excluded, struck out when skipped, with their new time when moved.
   */
  private static void nextFires(StringBuilder b, JobInfo j, Schedules.Upcoming next, ZoneId zone) {
    JobSpec s = j.spec();
    boolean jitter = s.jitter().isPresent();
    boolean calendar = s.calendar().isPresent();
    boolean moves = s.calendarPolicy() == CalendarPolicy.NEXT_ALLOWED;
    b.append("<h2>Next fires</h2>");
    if (calendar) {
      b.append("<p id=\"calendar-note\">Calendar <strong>")
          .append(esc(s.calendar().get()))
          .append("</strong> applied: ")
          .append(esc(Schedules.describe(s.calendarPolicy())))
          .append(".</p>");
    }
    next.problem()
        .ifPresent(
            p ->
                b.append("<p class=\"warn\" id=\"calendar-problem\">")
                    .append(esc(p))
                    .append("</p>"));
    b.append("<table id=\"next\"><tr><th>")
        .append(esc(zone.getId()))
        .append("</th><th>UTC</th>")
        .append(jitter ? "<th>due with jitter (" + esc(zone.getId()) + ")</th>" : "")
        .append(calendar ? "<th>calendar</th>" : "")
        .append("</tr>");
    for (CronPreview.Fire f : next.fires()) {
      excludedRows(b, f, moves, jitter, zone);
      b.append("<tr class=\"fire\"><td>")
          .append(local(f.fire(), zone))
          .append("</td><td>")
          .append(utc(f.fire()));
      if (jitter) {
        b.append("</td><td class=\"due\">").append(local(f.due(), zone));
      }
      if (calendar) {
        b.append("</td><td>")
            .append(moves && !f.excluded().isEmpty() ? "fires (moved fires run here)" : "fires");
      }
      b.append("</td></tr>");
    }
    if (next.fires().isEmpty()) {
      b.append("<tr><td colspan=\"4\">none</td></tr>");
    }
    b.append("</table>");
  }

  /** The rows of the slots excluded before {@code f}, and one counting those not listed. */
  private static void excludedRows(
      StringBuilder b, CronPreview.Fire f, boolean moves, boolean jitter, ZoneId zone) {
    String kind = moves ? "moved" : "skipped";
    for (Instant t : f.excluded()) {
      b.append("<tr class=\"")
          .append(kind)
          .append("\"><td>")
          .append(local(t, zone))
          .append("</td><td>")
          .append(utc(t))
          .append(jitter ? "</td><td>" : "")
          .append("</td><td>")
          .append(moves ? "moved to " + local(f.fire(), zone) : "skipped (excluded)")
          .append("</td></tr>");
    }
    long more = f.excludedCount() - f.excluded().size();
    if (more > 0) {
      b.append("<tr class=\"")
          .append(kind)
          .append("-more\"><td colspan=\"4\">and ")
          .append(f.excludedCount() >= CronPreview.MAX_COUNTED ? "at least " : "")
          .append(more)
          .append(" more excluded slot(s) before this fire, ")
          .append(moves ? "moved to it" : "skipped")
          .append("</td></tr>");
    }
  }

  static String calendars(
      Context c, Map<String, BusinessCalendar> calendars, Map<String, Long> jobs) {
    StringBuilder b = head(c, "Calendars");
    b.append("<h1>Calendars</h1><p>")
        .append(calendars.size())
        .append(" calendar(s). Read-only: calendars are stored by the application")
        .append(" (<code>Scheduler.putCalendar</code>).</p>")
        .append("<table id=\"calendars\"><tr><th>name</th><th>zone</th><th>rules</th>")
        .append("<th>jobs attached</th></tr>");
    calendars.forEach(
        (name, cal) ->
            b.append("<tr id=\"cal-")
                .append(param(name))
                .append("\"><td class=\"name\">")
                .append(esc(name))
                .append("</td><td>")
                .append(esc(cal.zone().getId()))
                .append("</td><td>")
                .append(esc(Schedules.describe(cal)))
                .append("</td><td class=\"jobs\">")
                .append(jobs.getOrDefault(name, 0L))
                .append("</td></tr>"));
    if (calendars.isEmpty()) {
      b.append("<tr><td colspan=\"4\">none stored</td></tr>");
    }
    return foot(b.append("</table>"));
  }

  static String limits(Context c, List<LimitStatus> limits) {
    StringBuilder b = head(c, "Limits");
    b.append("<h1>Concurrency limits</h1><p>")
        .append(limits.size())
        .append(" limit(s). This instance's view: <em>running</em> counts the permits held here")
        .append(" (backfill runs included), <em>waiting</em> the due fires queued here for a")
        .append(" permit; in cluster mode, runs on other instances are not counted. Limits are")
        .append(" set on the scheduler's builder (<code>maxConcurrent</code>).</p>")
        .append("<table id=\"limits\"><tr><th>name</th><th>handlers</th><th>permits</th>")
        .append("<th>running</th><th>waiting</th></tr>");
    for (LimitStatus l : limits) {
      b.append("<tr id=\"limit-")
          .append(param(l.name()))
          .append("\"><td class=\"name\">")
          .append(esc(l.name()))
          .append("</td><td class=\"handlers\">")
          .append(esc(String.join(", ", l.handlers())))
          .append("</td><td class=\"permits\">")
          .append(l.permits())
          .append("</td><td class=\"running\">")
          .append(l.running())
          .append("</td><td class=\"waiting\">")
          .append(l.waiting())
          .append("</td></tr>");
    }
    if (limits.isEmpty()) {
      b.append("<tr><td colspan=\"5\">none configured on this scheduler (a dashboard started")
          .append(" by the CLI runs no engine, so it has no limits to show)</td></tr>");
    }
    return foot(b.append("</table>"));
  }

  static String confirm(Context c, JobInfo j, String action, String csrf) {
    StringBuilder b = head(c, "Confirm");
    b.append("<h1>")
        .append(Router.ACTIONS.get(action))
        .append(" job <span id=\"key\">")
        .append(esc(j.key()))
        .append("</span>?</h1><p>")
        .append(esc(explain(action)))
        .append("</p><form method=\"post\" action=\"")
        .append(esc(c.base()))
        .append("/action\"><input type=\"hidden\" name=\"key\" value=\"")
        .append(esc(j.key()))
        .append("\"><input type=\"hidden\" name=\"action\" value=\"")
        .append(action)
        .append("\"><input type=\"hidden\" name=\"csrf\" value=\"")
        .append(esc(csrf))
        .append("\"><button id=\"confirm\">")
        .append(Router.ACTIONS.get(action))
        .append("</button> <a href=\"")
        .append(jobHref(c, j.key()))
        .append("\">Cancel</a></form>");
    return foot(b);
  }

  static String instances(Context c, Map<String, Instant> instances, Instant now) {
    StringBuilder b = head(c, "Instances");
    b.append("<h1>Instances</h1>");
    if (instances == null) {
      b.append("<p>Not known here: instances are registered by a clustered store; start the")
          .append(" dashboard with <code>.instances(jdbcStore::instances)</code>.</p>");
      return foot(b);
    }
    b.append("<table id=\"instances\"><tr><th>instance</th><th>last heartbeat (UTC)</th>")
        .append("<th>seconds ago</th></tr>");
    instances.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                b.append("<tr><td>")
                    .append(esc(e.getKey()))
                    .append("</td><td>")
                    .append(utc(e.getValue()))
                    .append("</td><td>")
                    .append(Duration.between(e.getValue(), now).toSeconds())
                    .append("</td></tr>"));
    if (instances.isEmpty()) {
      b.append("<tr><td colspan=\"3\">none registered</td></tr>");
    }
    return foot(b.append("</table>"));
  }

  static String error(Context c, int status, String message) {
    StringBuilder b = head(c, "Error " + status);
    b.append("<h1>Error ")
        .append(status)
        .append("</h1><p id=\"error\">")
        .append(esc(message))
        .append("</p>");
    return foot(b);
  }

  /** The actions offered for a job in this state. */
  static List<String> actionsFor(JobState state) {
    return switch (state) {
      case PAUSED -> List.of("resume", "trigger", "unschedule");
      case COMPLETE -> List.of("trigger", "unschedule");
      default -> List.of("pause", "trigger", "unschedule");
    };
  }

  private static String explain(String action) {
    return switch (action) {
      case "pause" -> "The job stops firing and keeps its timetable; a running run finishes.";
      case "resume" -> "The job fires again; fires missed while paused follow its misfire policy.";
      case "trigger" -> "The job runs once now, outside its timetable, which does not move.";
      default ->
          "The job and its history are deleted. A running run finishes. This cannot be undone.";
    };
  }

  private static String jobHref(Context c, String key) {
    return esc(c.base()) + "/job?key=" + param(key);
  }

  private static void row(StringBuilder b, String name, String html) {
    b.append("<tr><th>").append(name).append("</th><td>").append(html).append("</td></tr>");
  }

  private static String local(Instant t, ZoneId zone) {
    return t == null ? "" : esc(LOCAL.format(t.atZone(zone)));
  }

  private static String utc(Instant t) {
    return t == null ? "" : UTC.format(t);
  }

  private static String millis(Instant from, Instant to) {
    return from == null || to == null ? "" : Duration.between(from, to).toMillis() + " ms";
  }

  private static StringBuilder head(Context c, String title) {
    StringBuilder b = new StringBuilder(4096);
    b.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
        .append(esc(title))
        .append(" · Kairos</title><style>")
        .append(STYLE)
        .append("</style></head><body><nav><strong>Kairos</strong> <a href=\"")
        .append(esc(c.base()))
        .append("/\">Jobs</a><a href=\"")
        .append(esc(c.base()))
        .append("/instances\">Instances</a><a href=\"")
        .append(esc(c.base()))
        .append("/calendars\">Calendars</a><a href=\"")
        .append(esc(c.base()))
        .append("/limits\">Limits</a><span>")
        .append(esc(c.user()))
        .append(c.readOnly() ? " · read-only" : "")
        .append("</span></nav>");
    return b;
  }

  private static String foot(StringBuilder b) {
    return b.append("</body></html>").toString();
  }
}
