package dev.kairos.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kairos.BusinessCalendar;
import dev.kairos.JobInfo;
import dev.kairos.Scheduler;
import dev.kairos.dashboard.JobJson;
import dev.kairos.dashboard.Schedules;
import java.time.LocalDate;
import java.time.format.TextStyle;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** The read-only calendar commands: calendars, calendar. */
final class Calendars {
  /** Most days {@code calendar --days} shows: a little over ten years. */
  static final int MAX_DAYS = BusinessCalendar.MAX_LOOK_AHEAD_DAYS;

  private Calendars() {}

  /** The keys of the stored jobs attached to each calendar, by calendar name. */
  static Map<String, List<String>> attached(Scheduler s) {
    return s.jobs().stream()
        .filter(j -> j.spec().calendar().isPresent())
        .collect(
            Collectors.groupingBy(
                j -> j.spec().calendar().get(),
                TreeMap::new,
                Collectors.mapping(JobInfo::key, Collectors.toList())));
  }

  @Command(name = "calendars", description = "List the stored calendars, by name.")
  static final class All implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Override
    public Integer call() {
      try (Session s = root.session()) {
        Scheduler scheduler = s.scheduler(Set.of());
        Map<String, BusinessCalendar> calendars = scheduler.calendars();
        Map<String, List<String>> jobs = attached(scheduler);
        if (root.json) {
          ArrayNode a = JobJson.mapper().createArrayNode();
          calendars.forEach(
              (name, c) ->
                  a.add(JobJson.calendar(name, c, jobs.getOrDefault(name, List.of()).size())));
          root.printJson(a);
          return KairosCli.OK;
        }
        Table t = new Table("NAME", "ZONE", "RULES", "JOBS");
        calendars.forEach(
            (name, c) ->
                t.row(
                    name,
                    c.zone().getId(),
                    Schedules.describe(c),
                    jobs.getOrDefault(name, List.of()).size()));
        t.print(root.out());
        return KairosCli.OK;
      }
    }
  }

  @Command(
      name = "calendar",
      description = "Show a stored calendar: its rules, its jobs, and which coming days it allows.")
  static final class One implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Parameters(paramLabel = "NAME", description = "the calendar's name")
    String name;

    @Option(names = "--days", defaultValue = "14", description = "how many days (default: 14)")
    int days;

    @Option(
        names = "--from",
        paramLabel = "DATE",
        description = "first day shown, e.g. 2026-12-24 (default: today in the calendar's zone)")
    LocalDate from;

    @Override
    public Integer call() {
      if (days < 1 || days > MAX_DAYS) {
        throw new IllegalArgumentException("--days must be from 1 to " + MAX_DAYS + ": " + days);
      }
      try (Session s = root.session()) {
        Scheduler scheduler = s.scheduler(Set.of());
        BusinessCalendar c =
            scheduler
                .calendar(name)
                .orElseThrow(
                    () ->
                        new KairosCli.CliException(KairosCli.FAILED, "no calendar '" + name + "'"));
        List<String> jobs = attached(scheduler).getOrDefault(name, List.of());
        LocalDate first = from != null ? from : LocalDate.now(c.zone());
        if (root.json) {
          ObjectNode n = JobJson.calendar(name, c, jobs.size());
          ArrayNode keys = n.putArray("jobKeys");
          jobs.forEach(keys::add);
          ArrayNode a = n.putArray("dates");
          for (int i = 0; i < days; i++) {
            LocalDate d = first.plusDays(i);
            a.addObject()
                .put("date", d.toString())
                .put("allowed", c.allowsDate(d))
                .put("reason", c.allowsDate(d) ? null : why(c, d));
          }
          root.printJson(n);
          return KairosCli.OK;
        }
        Table rules = new Table("FIELD", "VALUE");
        rules
            .row("name", name)
            .row("zone", c.zone().getId())
            .row("rules", Schedules.describe(c))
            .row("jobs", jobs.isEmpty() ? "none" : String.join(", ", jobs));
        rules.print(root.out());
        root.out().println();
        Table t = new Table("DATE", "DAY", "FIRES");
        for (int i = 0; i < days; i++) {
          LocalDate d = first.plusDays(i);
          t.row(
              d,
              d.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH),
              c.allowsDate(d) ? window(c) : "excluded: " + why(c, d));
        }
        t.print(root.out());
        return KairosCli.OK;
      }
    }

    private static String window(BusinessCalendar c) {
      return c.from().isPresent()
          ? "allowed " + c.from().get() + " to " + c.until().orElseThrow()
          : "allowed";
    }

    /** Why the calendar excludes a date, in a few words. */
    private static String why(BusinessCalendar c, LocalDate d) {
      if (c.excludedDates().contains(d)) {
        return "excluded date";
      }
      if (!c.days().contains(d.getDayOfWeek())) {
        return "not a business day";
      }
      return "not the last business day of the month";
    }
  }
}
