package dev.kairos.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kairos.JobInfo;
import dev.kairos.JobState;
import dev.kairos.Scheduler;
import dev.kairos.UnreadableJob;
import dev.kairos.dashboard.JobJson;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * doctor: checks a store and lists what needs a person. Exit 1 if anything is found: jobs the
 * scheduler refuses to fire (unreadable rows and what only the engine refuses, with the reason),
 * expired leases (fires whose instance died mid-run, not yet recovered), instances without a
 * heartbeat for {@code --stale}, jobs overdue by more than {@code --overdue}, in cluster mode the
 * absence of any live instance, and, given {@code --handlers}, jobs whose handler is not in that
 * list.
 */
@Command(name = "doctor", description = "Check the store: schema, unreadable rows, leases, ...")
final class Doctor implements Callable<Integer> {
  /*
   * The CLI has no handlers, so "a job whose handler no instance has registered" is judged by its
   * effect: the job has been due for longer than --overdue and no run has taken it (it is not
   * RUNNING). An instance that has the handler would have run it; one that lacks it logs a warning
   * and leaves it due. All times are the database's clock, which judges leases and heartbeats too.
   * A paused job is never overdue; a retry or a pending trigger is judged by its due time.
   */

  @ParentCommand KairosCli root;

  @Option(
      names = "--handlers",
      split = ",",
      paramLabel = "NAME",
      description = "the handler names your application registers; jobs with others are reported")
  Set<String> handlers;

  @Option(
      names = "--stale",
      defaultValue = "PT5M",
      description = "an instance silent this long is reported (ISO-8601, default PT5M)")
  Duration stale;

  @Option(
      names = "--overdue",
      defaultValue = "PT5M",
      description =
          "a job due this long without a run is reported: no live instance seems to run its"
              + " handler (ISO-8601, default PT5M)")
  Duration overdue;

  private record Finding(String check, boolean ok, String detail) {}

  @Override
  public Integer call() {
    if (overdue.isNegative() || stale.isNegative()) {
      throw new IllegalArgumentException("--overdue and --stale must not be negative");
    }
    List<Finding> findings = new ArrayList<>();
    try (Session s = root.session()) {
      ClusterStore store = s.store();
      findings.add(new Finding("schema", true, "version " + JdbcStore.schemaVersion()));
      Scheduler scheduler = s.scheduler(Set.of());
      List<JobInfo> jobs = scheduler.jobs();
      findings.add(new Finding("jobs", true, jobs.size() + " readable"));
      // The scheduler's judgement, not only the store's: also what the engine alone refuses to
      // fire (a cron expression that does not parse, an attempt beyond the retry policy, a
      // missing calendar, a job behind by more than catchUp() replays).
      // The store read these (they are among the jobs); the others it refuses itself.
      Set<String> readable = new HashSet<>();
      jobs.forEach(j -> readable.add(j.key()));
      Set<String> refused = new HashSet<>();
      for (UnreadableJob u : scheduler.unreadable()) {
        refused.add(u.key());
        String check = readable.contains(u.key()) ? "refused job" : "unreadable row";
        findings.add(new Finding(check, false, "job '" + u.key() + "': " + u.reason()));
      }
      for (JobRecord r : store.expiredClaims(1000)) {
        findings.add(
            new Finding(
                "expired lease",
                false,
                "job '" + r.key() + "' (state " + r.state() + "): its instance stopped mid-run"));
      }
      Instant now = store.storeNow();
      checkInstances(store.instances(), now, findings);
      checkOverdue(store.findAll(), refused, now, findings);
      checkHandlers(jobs, findings);
    }
    return print(findings);
  }

  /**
   * One line per registered instance, and in cluster mode (any instance ever registered) whether at
   * least one has a heartbeat within {@code --stale}.
   */
  private void checkInstances(Map<String, Instant> instances, Instant now, List<Finding> out) {
    int live = 0;
    for (Map.Entry<String, Instant> e : instances.entrySet()) {
      Duration silent = Duration.between(e.getValue(), now);
      boolean alive = silent.compareTo(stale) < 0;
      live += alive ? 1 : 0;
      out.add(
          new Finding(
              "instance",
              alive,
              "'" + e.getKey() + "' last heartbeat " + silent.toSeconds() + " s ago"));
    }
    if (!instances.isEmpty()) {
      out.add(
          new Finding(
              "live instances",
              live > 0,
              live + " of " + instances.size() + " with a heartbeat within " + stale));
    }
  }

  /**
   * Jobs due for longer than {@code --overdue} that no run has taken, but for those already
   * reported as refused: no instance runs them whatever its handlers.
   */
  private void checkOverdue(
      List<JobRecord> records, Set<String> refused, Instant now, List<Finding> out) {
    for (JobRecord r : records) {
      boolean waiting = r.state() != JobState.RUNNING && r.state() != JobState.PAUSED;
      if (!waiting || r.dueTime() == null || refused.contains(r.key())) {
        continue;
      }
      Duration late = Duration.between(r.dueTime(), now);
      if (late.compareTo(overdue) > 0) {
        out.add(
            new Finding(
                "overdue",
                false,
                "job '"
                    + r.key()
                    + "': due since "
                    + Commands.utc(r.dueTime())
                    + " ("
                    + late.toMinutes()
                    + " min), not running: no live instance seems to run handler '"
                    + r.spec().handler()
                    + "'"));
      }
    }
  }

  /** Given {@code --handlers}, jobs whose handler is not among them. */
  private void checkHandlers(List<JobInfo> jobs, List<Finding> out) {
    if (handlers == null) {
      return;
    }
    for (JobInfo j : jobs) {
      if (!handlers.contains(j.spec().handler())) {
        out.add(
            new Finding(
                "unknown handler",
                false,
                "job '" + j.key() + "': handler '" + j.spec().handler() + "' not registered"));
      }
    }
  }

  private int print(List<Finding> findings) {
    boolean healthy = findings.stream().allMatch(Finding::ok);
    if (root.json) {
      ObjectNode o = JobJson.mapper().createObjectNode().put("healthy", healthy);
      ArrayNode a = o.putArray("findings");
      findings.forEach(
          f -> a.addObject().put("check", f.check()).put("ok", f.ok()).put("detail", f.detail()));
      root.printJson(o);
    } else {
      Table t = new Table("", "CHECK", "DETAIL");
      findings.forEach(f -> t.row(f.ok() ? "ok" : "PROBLEM", f.check(), f.detail()));
      t.print(root.out());
    }
    return healthy ? KairosCli.OK : KairosCli.FAILED;
  }
}
