package dev.kairos.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kairos.JobInfo;
import dev.kairos.dashboard.JobJson;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * doctor: checks a store and lists what needs a person. Exit 1 if anything is found: unreadable
 * rows (with the reason), expired leases (fires whose instance died mid-run, not yet recovered),
 * instances without a heartbeat for {@code --stale} and, given {@code --handlers}, jobs whose
 * handler is not in that list.
 */
@Command(name = "doctor", description = "Check the store: schema, unreadable rows, leases, ...")
final class Doctor implements Callable<Integer> {
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

  private record Finding(String check, boolean ok, String detail) {}

  @Override
  public Integer call() {
    List<Finding> findings = new ArrayList<>();
    try (Session s = root.session()) {
      JdbcStore store = s.store();
      findings.add(new Finding("schema", true, "version " + JdbcStore.schemaVersion()));
      List<JobInfo> jobs = s.scheduler(Set.of()).jobs();
      findings.add(new Finding("jobs", true, jobs.size() + " readable"));
      for (Map.Entry<String, String> e : store.unreadableJobs().entrySet()) {
        findings.add(
            new Finding("unreadable row", false, "job '" + e.getKey() + "': " + e.getValue()));
      }
      for (JobRecord r : store.expiredClaims(1000)) {
        findings.add(
            new Finding(
                "expired lease",
                false,
                "job '" + r.key() + "' (state " + r.state() + "): its instance stopped mid-run"));
      }
      Instant now = store.storeNow();
      for (Map.Entry<String, Instant> e : store.instances().entrySet()) {
        Duration silent = Duration.between(e.getValue(), now);
        boolean alive = silent.compareTo(stale) < 0;
        findings.add(
            new Finding(
                "instance",
                alive,
                "'" + e.getKey() + "' last heartbeat " + silent.toSeconds() + " s ago"));
      }
      if (handlers != null) {
        for (JobInfo j : jobs) {
          if (!handlers.contains(j.spec().handler())) {
            findings.add(
                new Finding(
                    "unknown handler",
                    false,
                    "job '" + j.key() + "': handler '" + j.spec().handler() + "' not registered"));
          }
        }
      }
    }
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
