package dev.kairos.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kairos.BusinessCalendar;
import dev.kairos.CalendarPolicy;
import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.LimitStatus;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.Retry;
import dev.kairos.RunRecord;
import dev.kairos.Schedule;
import dev.kairos.engine.CronPreview;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The JSON form of jobs, runs, job definitions, calendars and concurrency limits, shared by the
 * dashboard's JSON API and the command-line tool's {@code export}/{@code import}. Instants are
 * ISO-8601 UTC text, durations ISO-8601 ({@code PT5M}), enums their Java names.
 *
 * <p>A definition ({@link #spec(JobSpec)}) reads back to an equal {@link JobSpec} ({@link
 * #readSpec(JsonNode)}). Reading is strict: an unknown or missing field, or a value of the wrong
 * type, is an {@link IllegalArgumentException} naming the job and the field.
 */
public final class JobJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JobJson() {}

  /**
   * The shared mapper (no custom modules; trees only).
   *
   * @return the mapper
   */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * A job definition as JSON.
   *
   * @param spec the definition
   * @return a new JSON object, which {@link #readSpec} reads back
   */
  public static ObjectNode spec(JobSpec spec) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("key", spec.key());
    n.put("handler", spec.handler());
    spec.data().ifPresent(d -> n.put("data", d));
    n.set("schedule", schedule(spec.schedule()));
    spec.startAt().ifPresent(t -> n.put("startAt", t.toString()));
    spec.initialDelay().ifPresent(d -> n.put("initialDelay", d.toString()));
    n.set("misfire", misfire(spec.misfire()));
    spec.jitter().ifPresent(j -> n.put("jitter", j.toString()));
    if (spec.overlap() != Overlap.forbid()) {
      n.put("overlap", spec.overlap().toString());
    }
    spec.calendar()
        .ifPresent(
            c ->
                n.putObject("calendar").put("name", c).put("policy", spec.calendarPolicy().name()));
    ObjectNode retry = n.putObject("retry");
    retry.put("maxAttempts", spec.retry().maxAttempts());
    retry.put("initialDelay", spec.retry().initialDelay().toString());
    return n;
  }

  private static ObjectNode schedule(Schedule s) {
    ObjectNode n = MAPPER.createObjectNode();
    if (s instanceof Schedule.FixedRate r) {
      n.put("kind", "fixedRate").put("period", r.period().toString());
    } else if (s instanceof Schedule.FixedDelay d) {
      n.put("kind", "fixedDelay").put("delay", d.delay().toString());
    } else if (s instanceof Schedule.Once o) {
      n.put("kind", "once");
      if (o.at() != null) {
        n.put("at", o.at().toString());
      } else {
        n.put("delay", o.delay().toString());
      }
    } else if (s instanceof Schedule.Cron c) {
      n.put("kind", "cron").put("expression", c.expression());
      if (c.zone() != null) {
        n.put("zone", c.zone().getId());
      }
      n.put("syntax", c.syntax().name());
      n.put("dstGap", c.dst().gap().name()).put("dstOverlap", c.dst().overlap().name());
    }
    return n;
  }

  private static ObjectNode misfire(Misfire m) {
    ObjectNode n = MAPPER.createObjectNode();
    if (m instanceof Misfire.CatchUp c) {
      n.put("policy", "catchUp");
      if (c.max() != Integer.MAX_VALUE) {
        n.put("max", c.max());
      }
      c.catchUpWindow().ifPresent(w -> n.put("window", w.toString()));
    } else if (m instanceof Misfire.FireOnce) {
      n.put("policy", "fireOnce");
    } else {
      n.put("policy", "skip");
    }
    n.put("threshold", m.threshold().toString());
    return n;
  }

  /**
   * A stored job: its definition and where it stands.
   *
   * @param info the stored job
   * @return a new JSON object
   */
  public static ObjectNode job(JobInfo info) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("key", info.key());
    n.put("state", info.state().name());
    n.set("spec", spec(info.spec()));
    putInstant(n, "nextFireTime", info.nextFireTime());
    putInstant(n, "lastScheduledFireTime", info.lastScheduledFireTime());
    putInstant(n, "lastStart", info.lastStart());
    putInstant(n, "lastEnd", info.lastEnd());
    n.put("lastOutcome", info.lastOutcome() == null ? null : info.lastOutcome().name());
    n.put("lastError", info.lastError());
    n.put("runCount", info.runCount());
    n.put("failureCount", info.failureCount());
    return n;
  }

  /**
   * One run of a job's history, with its lateness (start minus scheduled fire time) in ms, whether
   * it was a recovery or a backfill run and how many missed fires it stood for. A backfill run has
   * no lateness: it ran a past fire on purpose.
   *
   * @param r the run
   * @return a new JSON object
   */
  public static ObjectNode run(RunRecord r) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("key", r.key());
    putInstant(n, "scheduledFireTime", r.scheduledFireTime());
    putInstant(n, "start", r.start());
    putInstant(n, "end", r.end());
    if (r.start() != null && r.end() != null) {
      n.put("durationMs", Duration.between(r.start(), r.end()).toMillis());
    }
    if (r.start() != null && r.scheduledFireTime() != null && !r.backfill()) {
      n.put("latenessMs", Duration.between(r.scheduledFireTime(), r.start()).toMillis());
    }
    n.put("outcome", r.outcome() == null ? null : r.outcome().name());
    n.put("error", r.error());
    n.put("attempt", r.attempt());
    n.put("instance", r.instance());
    n.put("recovery", r.recovery());
    n.put("backfill", r.backfill());
    n.put("missedFires", r.missedFires());
    return n;
  }

  /**
   * Instants as a JSON array of ISO-8601 text.
   *
   * @param instants the instants
   * @return a new JSON array, in the same order
   */
  public static ArrayNode instants(List<Instant> instants) {
    ArrayNode a = MAPPER.createArrayNode();
    instants.forEach(t -> a.add(t.toString()));
    return a;
  }

  /**
   * A stored calendar: its name, zone, rules (as fields and in words) and how many jobs are
   * attached to it.
   *
   * @param name the calendar's name
   * @param c the calendar
   * @param jobs how many stored jobs are attached to it
   * @return a new JSON object
   */
  public static ObjectNode calendar(String name, BusinessCalendar c, long jobs) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("name", name);
    n.put("zone", c.zone().getId());
    ArrayNode days = n.putArray("days");
    c.days().stream().sorted().forEach(d -> days.add(d.name()));
    ArrayNode dates = n.putArray("excludedDates");
    c.excludedDates().forEach(d -> dates.add(d.toString()));
    c.from().ifPresent(t -> n.put("from", t.toString()));
    c.until().ifPresent(t -> n.put("until", t.toString()));
    n.put("lastBusinessDayOfMonth", c.lastBusinessDayOnly());
    n.put("description", Schedules.describe(c));
    n.put("jobs", jobs);
    return n;
  }

  /**
   * A concurrency limit as this scheduler instance sees it: its name, permits and handlers
   * (sorted), the permits held here ({@code running}) and the due fires waiting here for one
   * ({@code waiting}).
   *
   * @param l the limit's status
   * @return a new JSON object
   */
  public static ObjectNode limit(LimitStatus l) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("name", l.name());
    n.put("permits", l.permits());
    ArrayNode handlers = n.putArray("handlers");
    l.handlers().forEach(handlers::add);
    n.put("running", l.running());
    n.put("waiting", l.waiting());
    return n;
  }

  /**
   * A job's coming fires with its calendar and jitter applied ({@link Schedules#upcoming}): each
   * fire's time, due time, and the slots the calendar excluded before it, marked {@code skipped} or
   * {@code moved} by the job's policy.
   *
   * @param fires the coming fires
   * @param policy the job's calendar policy
   * @return a new JSON array, in fire order
   */
  public static ArrayNode fires(List<CronPreview.Fire> fires, CalendarPolicy policy) {
    ArrayNode a = MAPPER.createArrayNode();
    String mark = policy == CalendarPolicy.NEXT_ALLOWED ? "moved" : "skipped";
    for (CronPreview.Fire f : fires) {
      ObjectNode n = a.addObject().put("fire", f.fire().toString()).put("due", f.due().toString());
      ArrayNode excluded = n.putArray(mark);
      f.excluded().forEach(t -> excluded.add(t.toString()));
      n.put("excludedCount", f.excludedCount());
    }
    return a;
  }

  private static void putInstant(ObjectNode n, String field, Instant t) {
    n.put(field, t == null ? null : t.toString());
  }

  // ---- reading ---------------------------------------------------------------------------------

  /**
   * Reads a job definition written by {@link #spec(JobSpec)}.
   *
   * @param n the JSON object
   * @return the job definition
   * @throws IllegalArgumentException naming the job key and the field, for bad input
   */
  public static JobSpec readSpec(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("a job definition must be a JSON object");
    }
    String key = text(n, "key", "job", true);
    String where = "job '" + key + "'";
    fields(
        n,
        where,
        Set.of(
            "key",
            "handler",
            "data",
            "schedule",
            "startAt",
            "initialDelay",
            "misfire",
            "jitter",
            "overlap",
            "calendar",
            "retry"));
    JobSpec spec =
        JobSpec.named(key)
            .handler(text(n, "handler", where, true))
            .schedule(readSchedule(object(n, "schedule", where, true), where));
    String data = text(n, "data", where, false);
    if (data != null) {
      spec = spec.data(data);
    }
    String startAt = text(n, "startAt", where, false);
    if (startAt != null) {
      spec = spec.startAt(instant(startAt, where + " startAt"));
    }
    String initialDelay = text(n, "initialDelay", where, false);
    if (initialDelay != null) {
      spec = spec.initialDelay(duration(initialDelay, where + " initialDelay"));
    }
    JsonNode misfire = object(n, "misfire", where, false);
    if (misfire != null) {
      spec = spec.misfire(readMisfire(misfire, where));
    }
    String jitter = text(n, "jitter", where, false);
    if (jitter != null) {
      spec = spec.jitter(duration(jitter, where + " jitter"));
    }
    String overlap = text(n, "overlap", where, false);
    if (overlap != null) {
      spec = spec.overlap(readOverlap(overlap, where));
    }
    JsonNode calendar = object(n, "calendar", where, false);
    if (calendar != null) {
      String w = where + " calendar";
      fields(calendar, w, Set.of("name", "policy"));
      String policy = text(calendar, "policy", w, false);
      spec =
          spec.excluding(
              text(calendar, "name", w, true),
              policy == null ? CalendarPolicy.SKIP : enumValue(CalendarPolicy.class, policy, w));
    }
    JsonNode retry = object(n, "retry", where, false);
    if (retry != null) {
      fields(retry, where + " retry", Set.of("maxAttempts", "initialDelay"));
      spec =
          spec.retry(
              Retry.backoff(
                  integer(retry, "maxAttempts", where + " retry"),
                  duration(
                      text(retry, "initialDelay", where + " retry", true),
                      where + " retry initialDelay")));
    }
    return spec;
  }

  private static Overlap readOverlap(String overlap, String where) {
    return switch (overlap) {
      case "forbid" -> Overlap.forbid();
      case "bufferOne" -> Overlap.bufferOne();
      case "skip" -> Overlap.skip();
      case "replace" -> Overlap.replace();
      default -> {
        try {
          yield Overlap.Allow.parse(overlap)
              .map(Overlap.class::cast)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          where
                              + " overlap: '"
                              + overlap
                              + "' is not one of forbid, bufferOne, skip, replace, allow(n)"));
        } catch (IllegalArgumentException e) {
          throw e.getMessage().startsWith(where)
              ? e
              : new IllegalArgumentException(where + " overlap: " + e.getMessage(), e);
        }
      }
    };
  }

  private static Schedule readSchedule(JsonNode s, String where) {
    String w = where + " schedule";
    String kind = text(s, "kind", w, true);
    switch (kind) {
      case "fixedRate" -> {
        fields(s, w, Set.of("kind", "period"));
        return new Schedule.FixedRate(duration(text(s, "period", w, true), w + " period"));
      }
      case "fixedDelay" -> {
        fields(s, w, Set.of("kind", "delay"));
        return new Schedule.FixedDelay(duration(text(s, "delay", w, true), w + " delay"));
      }
      case "once" -> {
        fields(s, w, Set.of("kind", "at", "delay"));
        String at = text(s, "at", w, false);
        String delay = text(s, "delay", w, false);
        if ((at == null) == (delay == null)) {
          throw new IllegalArgumentException(
              w + ": a once schedule needs exactly one of at, delay");
        }
        return at != null
            ? new Schedule.Once(instant(at, w + " at"), null)
            : new Schedule.Once(null, duration(delay, w + " delay"));
      }
      case "cron" -> {
        fields(s, w, Set.of("kind", "expression", "zone", "syntax", "dstGap", "dstOverlap"));
        String zone = text(s, "zone", w, false);
        String syntax = text(s, "syntax", w, false);
        String gap = text(s, "dstGap", w, false);
        String overlap = text(s, "dstOverlap", w, false);
        DstPolicy dst =
            new DstPolicy(
                gap == null ? DstPolicy.Gap.SHIFT : enumValue(DstPolicy.Gap.class, gap, w),
                overlap == null
                    ? DstPolicy.Overlap.FIRST
                    : enumValue(DstPolicy.Overlap.class, overlap, w));
        return new Schedule.Cron(
            text(s, "expression", w, true),
            zone == null ? null : zone(zone, w),
            syntax == null ? CronSyntax.QUARTZ : enumValue(CronSyntax.class, syntax, w),
            dst);
      }
      default ->
          throw new IllegalArgumentException(
              w + ": unknown kind '" + kind + "' (fixedRate, fixedDelay, once, cron)");
    }
  }

  private static Misfire readMisfire(JsonNode m, String where) {
    String w = where + " misfire";
    fields(m, w, Set.of("policy", "max", "window", "threshold"));
    String policy = text(m, "policy", w, true);
    Misfire misfire =
        switch (policy) {
          case "catchUp" ->
              m.has("max") ? Misfire.catchUp(integer(m, "max", w)) : Misfire.catchUp();
          case "fireOnce" -> Misfire.fireOnce();
          case "skip" -> Misfire.skip();
          default ->
              throw new IllegalArgumentException(
                  w + ": unknown policy '" + policy + "' (catchUp, fireOnce, skip)");
        };
    if (!policy.equals("catchUp") && m.has("max")) {
      throw new IllegalArgumentException(w + ": max applies to catchUp only");
    }
    String window = text(m, "window", w, false);
    if (window != null) {
      if (!(misfire instanceof Misfire.CatchUp c)) {
        throw new IllegalArgumentException(
            w + ": window applies to catchUp only, not " + policy + ": '" + window + "'");
      }
      misfire = c.within(duration(window, w + " window"));
    }
    String threshold = text(m, "threshold", w, false);
    return threshold == null ? misfire : misfire.threshold(duration(threshold, w + " threshold"));
  }

  private static void fields(JsonNode n, String where, Set<String> allowed) {
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw new IllegalArgumentException(
            where + ": unknown field '" + f + "' (expected one of " + sorted(allowed) + ")");
      }
    }
  }

  private static List<String> sorted(Set<String> s) {
    return s.stream().sorted().toList();
  }

  private static String text(JsonNode n, String field, String where, boolean required) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new IllegalArgumentException(where + ": missing field '" + field + "'");
      }
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException(where + ": field '" + field + "' must be a string");
    }
    return v.textValue();
  }

  private static JsonNode object(JsonNode n, String field, String where, boolean required) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new IllegalArgumentException(where + ": missing field '" + field + "'");
      }
      return null;
    }
    if (!v.isObject()) {
      throw new IllegalArgumentException(where + ": field '" + field + "' must be an object");
    }
    return v;
  }

  private static int integer(JsonNode n, String field, String where) {
    JsonNode v = n.get(field);
    if (v == null || !v.isInt()) {
      throw new IllegalArgumentException(where + ": field '" + field + "' must be an integer");
    }
    return v.intValue();
  }

  private static Instant instant(String text, String where) {
    try {
      return Instant.parse(text);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException(
          where + ": not an ISO-8601 instant such as 2026-01-05T02:00:00Z: '" + text + "'", e);
    }
  }

  private static Duration duration(String text, String where) {
    try {
      return Duration.parse(text);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException(
          where + ": not an ISO-8601 duration such as PT5M: '" + text + "'", e);
    }
  }

  private static ZoneId zone(String text, String where) {
    try {
      return ZoneId.of(text);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException(where + ": unknown zone '" + text + "'", e);
    }
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String text, String where) {
    try {
      return Enum.valueOf(type, text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          where + ": '" + text + "' is not a " + type.getSimpleName(), e);
    }
  }
}
