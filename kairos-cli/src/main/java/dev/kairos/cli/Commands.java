package dev.kairos.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kairos.CalendarPolicy;
import dev.kairos.CronSyntax;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.RunRecord;
import dev.kairos.Scheduler;
import dev.kairos.dashboard.JobJson;
import dev.kairos.dashboard.Schedules;
import dev.kairos.engine.CronPreview;
import dev.kairos.spi.JobRules;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** The read-only commands: jobs, show, history, preview, instances. */
final class Commands {
  static final DateTimeFormatter UTC =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
  static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z");

  private Commands() {}

  static String utc(Instant t) {
    return t == null ? "" : UTC.format(t);
  }

  static JobInfo job(Scheduler s, String key) {
    return s.job(key)
        .orElseThrow(() -> new KairosCli.CliException(KairosCli.FAILED, "no job '" + key + "'"));
  }

  @Command(name = "jobs", description = "List the jobs, by key.")
  static final class Jobs implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Option(names = "--state", description = "only jobs in this state: ${COMPLETION-CANDIDATES}")
    JobState state;

    @Option(names = "--handler", description = "only jobs with this handler")
    String handler;

    @Override
    public Integer call() {
      try (Session s = root.session()) {
        List<JobInfo> jobs =
            s.scheduler(Set.of()).jobs().stream()
                .filter(j -> state == null || j.state() == state)
                .filter(j -> handler == null || handler.equals(j.spec().handler()))
                .toList();
        if (root.json) {
          ArrayNode a = JobJson.mapper().createArrayNode();
          jobs.forEach(j -> a.add(JobJson.job(j)));
          root.printJson(a);
        } else {
          Table t = new Table("KEY", "HANDLER", "SCHEDULE", "STATE", "NEXT FIRE", "LAST", "FAILS");
          for (JobInfo j : jobs) {
            t.row(
                j.key(),
                j.spec().handler(),
                Schedules.describe(j.spec().schedule()),
                j.state(),
                utc(j.nextFireTime()),
                j.lastOutcome(),
                j.failureCount());
          }
          t.print(root.out());
        }
        return KairosCli.OK;
      }
    }
  }

  /** The fire times of the upcoming fires. */
  static List<Instant> fireTimes(Schedules.Upcoming next) {
    return next.fires().stream().map(CronPreview.Fire::fire).toList();
  }

  /**
   * The upcoming fires as lines of (UTC, local time, due time in UTC or empty, mark): before each
   * fire the slots its calendar excluded, marked skipped or moved; the fire itself marked only when
   * the job has a calendar. A due time is shown for a job with jitter.
   */
  static List<String[]> lines(JobSpec spec, Schedules.Upcoming next, ZoneId zone) {
    boolean moves = spec.calendarPolicy() == CalendarPolicy.NEXT_ALLOWED;
    boolean calendar = spec.calendar().isPresent();
    boolean jitter = spec.jitter().isPresent();
    List<String[]> lines = new ArrayList<>();
    for (CronPreview.Fire f : next.fires()) {
      for (Instant t : f.excluded()) {
        String mark = moves ? "moved to " + utc(f.fire()) : "skipped (excluded)";
        lines.add(new String[] {utc(t), LOCAL.format(t.atZone(zone)), "", mark});
      }
      long more = f.excludedCount() - f.excluded().size();
      if (more > 0) {
        String mark =
            (moves ? "moved" : "skipped")
                + ": "
                + (f.excludedCount() >= CronPreview.MAX_COUNTED ? "at least " : "")
                + more
                + " more excluded slot(s)";
        lines.add(new String[] {"", "", "", mark});
      }
      String mark = !calendar ? "" : moves && !f.excluded().isEmpty() ? "fires (moved)" : "fires";
      lines.add(
          new String[] {
            utc(f.fire()), LOCAL.format(f.fire().atZone(zone)), jitter ? utc(f.due()) : "", mark
          });
    }
    return lines;
  }

  @Command(name = "show", description = "Show a job: definition, state, next fires.")
  static final class Show implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Parameters(paramLabel = "KEY", description = "the job's key")
    String key;

    @Override
    public Integer call() {
      try (Session s = root.session()) {
        Scheduler scheduler = s.scheduler(Set.of());
        JobInfo j = job(scheduler, key);
        Schedules.Upcoming next = Schedules.upcoming(j, scheduler::calendar, 10);
        if (root.json) {
          ObjectNode n = JobJson.job(j);
          n.set("nextFires", JobJson.instants(fireTimes(next)));
          n.set("upcoming", JobJson.fires(next.fires(), j.spec().calendarPolicy()));
          next.problem().ifPresent(p -> n.put("calendarProblem", p));
          root.printJson(n);
          return KairosCli.OK;
        }
        JobSpec spec = j.spec();
        ZoneId zone = Schedules.zoneOf(spec, ZoneOffset.UTC);
        Table t = new Table("FIELD", "VALUE");
        t.row("key", j.key())
            .row("handler", spec.handler())
            .row("schedule", Schedules.describe(spec.schedule()))
            .row("misfire", Schedules.describe(spec.misfire()))
            .row("retry", spec.retry().maxAttempts() + " attempt(s)");
        spec.jitter().ifPresent(d -> t.row("jitter", "up to " + Schedules.human(d)));
        spec.calendar()
            .ifPresent(
                c -> t.row("calendar", c + ": " + Schedules.describe(spec.calendarPolicy())));
        next.problem().ifPresent(p -> t.row("calendar problem", p));
        t.row("data", spec.data().orElse(""))
            .row("state", j.state())
            .row("runs", j.runCount())
            .row("failures", j.failureCount())
            .row("last start", utc(j.lastStart()))
            .row("last outcome", j.lastOutcome())
            .row("last error", j.lastError());
        List<String[]> lines = lines(spec, next, zone);
        for (int i = 0; i < lines.size(); i++) {
          String[] l = lines.get(i);
          String text = l[0].isEmpty() ? "" : l[0] + "  (" + l[1] + ")";
          if (!l[2].isEmpty()) {
            text += "  due " + l[2];
          }
          if (!l[3].isEmpty()) {
            text = text.isEmpty() ? l[3] : text + "  " + l[3];
          }
          t.row(i == 0 ? "next fires" : "", text);
        }
        t.print(root.out());
        return KairosCli.OK;
      }
    }
  }

  @Command(name = "history", description = "A job's newest runs, newest first.")
  static final class History implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Parameters(paramLabel = "KEY", description = "the job's key")
    String key;

    @Option(names = "-n", defaultValue = "20", description = "how many runs (default: 20)")
    int n;

    @Override
    public Integer call() {
      if (n < 1) {
        throw new IllegalArgumentException("-n must be at least 1: " + n);
      }
      try (Session s = root.session()) {
        Scheduler scheduler = s.scheduler(Set.of());
        job(scheduler, key);
        List<RunRecord> runs = scheduler.history(key, n);
        if (root.json) {
          ArrayNode a = JobJson.mapper().createArrayNode();
          runs.forEach(r -> a.add(JobJson.run(r)));
          root.printJson(a);
          return KairosCli.OK;
        }
        Table t =
            new Table(
                "SCHEDULED",
                "START",
                "DURATION",
                "LATENESS",
                "OUTCOME",
                "ATTEMPT",
                "INSTANCE",
                "RECOVERY",
                "MISSED",
                "ERROR");
        for (RunRecord r : runs) {
          t.row(
              utc(r.scheduledFireTime()),
              utc(r.start()),
              millis(r.start(), r.end()),
              r.backfill() ? "backfill" : millis(r.scheduledFireTime(), r.start()),
              r.outcome(),
              r.attempt(),
              r.instance(),
              r.recovery() ? "yes" : "",
              r.missedFires(),
              r.error());
        }
        t.print(root.out());
        return KairosCli.OK;
      }
    }

    private static String millis(Instant from, Instant to) {
      return from == null || to == null ? "" : Duration.between(from, to).toMillis() + " ms";
    }
  }

  @Command(
      name = "preview",
      description = "The next fire times of a stored job, or of a cron expression (no store).")
  static final class Preview implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @ArgGroup(multiplicity = "1")
    Target target;

    static final class Target {
      @Parameters(paramLabel = "KEY", description = "a stored job's key")
      String key;

      @Option(names = "--cron", paramLabel = "EXPR", description = "a cron expression")
      String cron;
    }

    @Option(names = "--zone", description = "zone of --cron (default: UTC)")
    ZoneId zone;

    @Option(
        names = "--syntax",
        description = "syntax of --cron: ${COMPLETION-CANDIDATES} (default: QUARTZ)")
    CronSyntax syntax;

    @Option(names = "-n", defaultValue = "10", description = "how many (default: 10)")
    int n;

    @Option(names = "--from", description = "preview --cron from this instant (default: now)")
    Instant from;

    @Override
    public Integer call() {
      if (n < 1 || n > 1000) {
        throw new IllegalArgumentException("-n must be from 1 to 1000: " + n);
      }
      List<Instant> fires;
      ZoneId shown;
      String what;
      JobSpec stored = null;
      Schedules.Upcoming upcoming = null;
      if (target.cron != null) {
        if (root.url != null || root.h2 != null) {
          throw new IllegalArgumentException("preview --cron needs no store: drop --url/--h2");
        }
        shown = zone == null ? ZoneOffset.UTC : zone;
        CronSyntax sx = syntax == null ? CronSyntax.QUARTZ : syntax;
        JobSpec spec = JobSpec.named("preview").cron(target.cron, shown, sx);
        what = CronPreview.describe(target.cron, sx, Locale.ENGLISH);
        try {
          fires = CronPreview.nextFireTimes(spec, from == null ? Instant.now() : from, n);
        } catch (IllegalArgumentException e) {
          // The spec is the preview's own: its key would only puzzle the user.
          throw new IllegalArgumentException(JobRules.withoutKey(e.getMessage(), spec.key()), e);
        }
      } else {
        if (zone != null || syntax != null || from != null) {
          throw new IllegalArgumentException("--zone, --syntax and --from go with --cron only");
        }
        try (Session s = root.session()) {
          Scheduler scheduler = s.scheduler(Set.of());
          JobInfo j = job(scheduler, target.key);
          stored = j.spec();
          shown = Schedules.zoneOf(stored, ZoneOffset.UTC);
          what = Schedules.describe(stored.schedule());
          upcoming = Schedules.upcoming(j, scheduler::calendar, n);
          fires = fireTimes(upcoming);
        }
      }
      if (root.json) {
        ObjectNode o = JobJson.mapper().createObjectNode().put("schedule", what);
        o.set("fires", JobJson.instants(fires));
        if (upcoming != null) {
          o.set("upcoming", JobJson.fires(upcoming.fires(), stored.calendarPolicy()));
          upcoming.problem().ifPresent(p -> o.put("calendarProblem", p));
        }
        root.printJson(o);
        return KairosCli.OK;
      }
      root.out().println(what);
      if (stored == null) {
        Table t = new Table("UTC", shown.getId());
        fires.forEach(f -> t.row(utc(f), LOCAL.format(f.atZone(shown))));
        t.print(root.out());
        return KairosCli.OK;
      }
      JobSpec spec = stored;
      spec.calendar()
          .ifPresent(
              c ->
                  root.out()
                      .println("calendar " + c + ": " + Schedules.describe(spec.calendarPolicy())));
      upcoming.problem().ifPresent(p -> root.out().println("calendar problem: " + p));
      boolean jitter = spec.jitter().isPresent();
      boolean calendar = spec.calendar().isPresent();
      List<String> header = new ArrayList<>(List.of("UTC", shown.getId()));
      if (jitter) {
        header.add("DUE (UTC)");
      }
      if (calendar) {
        header.add("CALENDAR");
      }
      Table t = new Table(header.toArray(String[]::new));
      for (String[] l : lines(spec, upcoming, shown)) {
        List<String> row = new ArrayList<>(List.of(l[0], l[1]));
        if (jitter) {
          row.add(l[2]);
        }
        if (calendar) {
          row.add(l[3]);
        }
        t.row(row.toArray());
      }
      t.print(root.out());
      return KairosCli.OK;
    }
  }

  @Command(name = "instances", description = "The cluster's instances and their last heartbeat.")
  static final class Instances implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Override
    public Integer call() {
      try (Session s = root.session()) {
        Map<String, Instant> instances = s.store().instances();
        Instant now = s.store().storeNow();
        if (root.json) {
          ArrayNode a = JobJson.mapper().createArrayNode();
          instances.entrySet().stream()
              .sorted(Map.Entry.comparingByKey())
              .forEach(
                  e ->
                      a.addObject()
                          .put("instance", e.getKey())
                          .put("lastHeartbeat", e.getValue().toString())
                          .put("secondsAgo", Duration.between(e.getValue(), now).toSeconds()));
          root.printJson(a);
          return KairosCli.OK;
        }
        Table t = new Table("INSTANCE", "LAST HEARTBEAT", "SECONDS AGO");
        instances.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .forEach(
                e ->
                    t.row(
                        e.getKey(),
                        utc(e.getValue()),
                        Duration.between(e.getValue(), now).toSeconds()));
        t.print(root.out());
        return KairosCli.OK;
      }
    }
  }
}
