package dev.kairos.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.dashboard.JobJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * export and import: job definitions (not their state or history) as JSON, to move jobs between
 * environments. The file is {@code {"format": "kairos-jobs", "version": 1, "jobs": [...]}}, each
 * job as {@link JobJson#spec}.
 */
final class Transfer {
  static final String FORMAT = "kairos-jobs";

  private Transfer() {}

  @Command(name = "export", description = "Write the job definitions as JSON (stdout or a file).")
  static final class Export implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Option(
        names = {"-o", "--output"},
        paramLabel = "FILE",
        description = "write to FILE")
    Path output;

    @Override
    public Integer call() throws IOException {
      try (Session s = root.session()) {
        ObjectNode doc =
            JobJson.mapper().createObjectNode().put("format", FORMAT).put("version", 1);
        ArrayNode jobs = doc.putArray("jobs");
        s.scheduler(Set.of()).jobs().forEach(j -> jobs.add(JobJson.spec(j.spec())));
        if (output == null) {
          root.printJson(doc);
        } else {
          Files.writeString(
              output,
              JobJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc) + "\n",
              StandardCharsets.UTF_8);
          root.out().println("exported " + jobs.size() + " job(s) to " + output);
        }
        int unreadable = s.store().unreadable().size();
        if (unreadable > 0) {
          throw new KairosCli.CliException(
              KairosCli.FAILED,
              unreadable + " unreadable row(s) were not exported; see kairos doctor");
        }
        return KairosCli.OK;
      }
    }
  }

  @Command(
      name = "import",
      description =
          "Schedule the jobs of an export file (an upsert per job: unchanged jobs keep their"
              + " state). All or nothing is checked first; --dry-run only says what would change.")
  static final class Import implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Parameters(paramLabel = "FILE", description = "a file written by kairos export")
    Path file;

    @Option(names = "--dry-run", description = "change nothing; print what would change")
    boolean dryRun;

    @Override
    public Integer call() {
      List<JobSpec> specs = read(file);
      Set<String> handlers = specs.stream().map(JobSpec::handler).collect(Collectors.toSet());
      try (Session s = root.session()) {
        Scheduler scheduler = s.scheduler(handlers);
        ArrayNode result = JobJson.mapper().createArrayNode();
        Table t = new Table("KEY", "CHANGE");
        for (JobSpec spec : specs) {
          Optional<JobInfo> before = scheduler.job(spec.key());
          String change;
          if (before.isEmpty()) {
            change = "created";
          } else if (sameDefinition(before.get().spec(), spec)) {
            change = "unchanged";
          } else {
            change = "updated";
          }
          if (!dryRun && !change.equals("unchanged")) {
            scheduler.schedule(spec);
          }
          result.addObject().put("key", spec.key()).put("change", change);
          t.row(spec.key(), change + (dryRun && !change.equals("unchanged") ? " (dry run)" : ""));
        }
        if (root.json) {
          root.printJson(result);
        } else {
          t.print(root.out());
        }
        return KairosCli.OK;
      }
    }

    /** Equal, counting a spec without a cron zone as equal to the stored one with its zone. */
    private static boolean sameDefinition(JobSpec stored, JobSpec imported) {
      if (stored.equals(imported)) {
        return true;
      }
      return imported.schedule() instanceof dev.kairos.Schedule.Cron c
          && c.zone() == null
          && stored.schedule() instanceof dev.kairos.Schedule.Cron sc
          && imported
              .schedule(
                  new dev.kairos.Schedule.Cron(c.expression(), sc.zone(), c.syntax(), c.dst()))
              .equals(stored);
    }

    /** Reads and checks the whole file before anything is scheduled. */
    static List<JobSpec> read(Path file) {
      JsonNode doc;
      try {
        doc = JobJson.mapper().readTree(Files.readString(file, StandardCharsets.UTF_8));
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException(
            file
                + ": not JSON (line "
                + e.getLocation().getLineNr()
                + ", column "
                + e.getLocation().getColumnNr()
                + ")",
            e);
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "cannot read "
                + file
                + ": "
                + (e instanceof java.nio.file.NoSuchFileException
                    ? "no such file"
                    : e.getMessage()),
            e);
      }
      if (doc == null
          || !doc.isObject()
          || !FORMAT.equals(doc.path("format").asText())
          || !doc.path("jobs").isArray()) {
        throw new IllegalArgumentException(
            file
                + ": not a kairos export (expected {\"format\": \"kairos-jobs\", \"jobs\": [...]})");
      }
      if (doc.path("version").asInt() != 1) {
        throw new IllegalArgumentException(
            file + ": export version " + doc.path("version") + " is not supported (1 is)");
      }
      // Every job is read and checked before anything changes, and every problem is reported
      // at once, numbered from 1 in the file's order, as scheduleAll reports a batch.
      List<JobSpec> specs = new ArrayList<>();
      List<String> problems = new ArrayList<>();
      Set<String> keys = new HashSet<>();
      Set<String> duplicates = new TreeSet<>();
      int i = 0;
      for (JsonNode n : doc.get("jobs")) {
        i++;
        try {
          JobSpec spec = JobJson.readSpec(n);
          // The same validation schedule() applies.
          dev.kairos.engine.CronPreview.nextFireTimes(spec, java.time.Instant.EPOCH, 0);
          if (!keys.add(spec.key())) {
            duplicates.add(spec.key());
          }
          specs.add(spec);
        } catch (IllegalArgumentException e) {
          problems.add("#" + i + " " + e.getMessage());
        }
      }
      if (!duplicates.isEmpty()) {
        problems.add("keys given twice: " + duplicates);
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(
            file
                + ": "
                + problems.size()
                + " problem(s) in "
                + i
                + " job(s); nothing imported: "
                + String.join("; ", problems));
      }
      return specs;
    }
  }
}
