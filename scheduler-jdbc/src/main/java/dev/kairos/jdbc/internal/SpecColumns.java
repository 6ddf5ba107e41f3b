package dev.kairos.jdbc.internal;

import static dev.kairos.jdbc.internal.Values.constant;
import static dev.kairos.jdbc.internal.Values.decimal;
import static dev.kairos.jdbc.internal.Values.duration;
import static dev.kairos.jdbc.internal.Values.instant;
import static dev.kairos.jdbc.internal.Values.integer;
import static dev.kairos.jdbc.internal.Values.name;
import static dev.kairos.jdbc.internal.Values.text;

import dev.kairos.CalendarPolicy;
import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.Retry;
import dev.kairos.Schedule;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * A {@link JobSpec} as columns of the jobs table: one column per part, so the definition can be
 * read and queried in SQL, and compared back with {@link JobSpec#equals}. Each sealed family is
 * stored as a kind column plus the parameters of its members; the parameters of other members are
 * null.
 */
final class SpecColumns {
  /** The definition columns, each bound under its own name. */
  static final List<String> COLUMNS =
      List.of(
          "handler",
          "data",
          "schedule_kind",
          "fixed_period",
          "once_at",
          "once_delay",
          "cron_expression",
          "cron_zone",
          "cron_syntax",
          "dst_gap",
          "dst_overlap",
          "start_at",
          "initial_delay",
          "misfire_kind",
          "misfire_max",
          "misfire_threshold",
          "catch_up_window",
          "retry_max_attempts",
          "retry_initial_delay",
          "jitter",
          "overlap_policy",
          "calendar_name",
          "calendar_policy");

  private SpecColumns() {}

  /** Binds the definition columns ({@link #COLUMNS}) of {@code spec}. */
  static void bind(Columns s, JobSpec spec) throws SQLException {
    s.text("handler", spec.handler())
        .text("data", spec.data().orElse(null))
        .number("start_at", decimal(spec.startAt().orElse(null)))
        .text("initial_delay", text(spec.initialDelay().orElse(null)));
    bindSchedule(s, spec);
    Misfire m = spec.misfire();
    s.text("misfire_kind", m == null ? null : misfireKind(m))
        .integer("misfire_max", m instanceof Misfire.CatchUp c ? c.max() : null)
        .text("misfire_threshold", m == null ? null : text(m.threshold()))
        .text("catch_up_window", m instanceof Misfire.CatchUp c ? text(c.window()) : null);
    Retry r = spec.retry();
    s.integer("retry_max_attempts", r == null ? null : r.maxAttempts())
        .text("retry_initial_delay", r == null ? null : text(r.initialDelay()))
        .text("jitter", text(spec.jitter().orElse(null)))
        .text("overlap_policy", spec.overlap() == null ? null : overlapKind(spec.overlap()));
    String calendar = spec.calendar().orElse(null);
    s.text("calendar_name", calendar)
        .text("calendar_policy", calendar == null ? null : name(spec.calendarPolicy()));
  }

  private static String overlapKind(Overlap o) {
    if (o instanceof Overlap.Skip) {
      return "SKIP";
    } else if (o instanceof Overlap.BufferOne) {
      return "BUFFER_ONE";
    } else if (o instanceof Overlap.Replace) {
      return "REPLACE";
    } else if (o instanceof Overlap.Allow a) {
      return "ALLOW(" + a.runs() + ")";
    }
    return "FORBID";
  }

  /** Null (rows before schema version 5) reads as the default, forbid. */
  private static Overlap overlap(ResultSet rs) throws SQLException {
    String kind = rs.getString("overlap_policy");
    if (kind == null) {
      return Overlap.forbid();
    }
    switch (kind) {
      case "FORBID":
        return Overlap.forbid();
      case "BUFFER_ONE":
        return Overlap.bufferOne();
      case "SKIP":
        return Overlap.skip();
      case "REPLACE":
        return Overlap.replace();
      default:
        return Overlap.Allow.parse(kind.toLowerCase(java.util.Locale.ROOT))
            .filter(a -> kind.startsWith("ALLOW("))
            .map(Overlap.class::cast)
            .orElseThrow(
                () -> new IllegalArgumentException("unknown overlap_policy '" + kind + "'"));
    }
  }

  private static void bindSchedule(Columns s, JobSpec spec) throws SQLException {
    Schedule schedule = spec.schedule();
    if (schedule == null) {
      throw new IllegalArgumentException("job '" + spec.key() + "': no schedule");
    }
    var rate = schedule instanceof Schedule.FixedRate r ? r : null;
    var delay = schedule instanceof Schedule.FixedDelay d ? d : null;
    var once = schedule instanceof Schedule.Once o ? o : null;
    var cron = schedule instanceof Schedule.Cron c ? c : null;
    DstPolicy dst = cron == null ? null : cron.dst();
    s.text("schedule_kind", scheduleKind(schedule))
        .text(
            "fixed_period",
            text(rate != null ? rate.period() : delay != null ? delay.delay() : null))
        .number("once_at", once == null ? null : decimal(once.at()))
        .text("once_delay", once == null ? null : text(once.delay()))
        .text("cron_expression", cron == null ? null : cron.expression())
        .text("cron_zone", cron == null || cron.zone() == null ? null : cron.zone().getId())
        .text("cron_syntax", cron == null ? null : name(cron.syntax()))
        .text("dst_gap", dst == null ? null : name(dst.gap()))
        .text("dst_overlap", dst == null ? null : name(dst.overlap()));
  }

  private static String scheduleKind(Schedule s) {
    if (s instanceof Schedule.FixedRate) {
      return "FIXED_RATE";
    } else if (s instanceof Schedule.FixedDelay) {
      return "FIXED_DELAY";
    } else if (s instanceof Schedule.Once) {
      return "ONCE";
    }
    return "CRON";
  }

  private static String misfireKind(Misfire m) {
    if (m instanceof Misfire.CatchUp) {
      return "CATCH_UP";
    } else if (m instanceof Misfire.FireOnce) {
      return "FIRE_ONCE";
    }
    return "SKIP";
  }

  /**
   * The definition of the current row.
   *
   * @throws IllegalArgumentException or {@link java.time.DateTimeException} if a column holds a
   *     value no definition maps to
   */
  static JobSpec read(ResultSet rs, String key) throws SQLException {
    return JobSpec.named(key)
        .handler(rs.getString("handler"))
        .data(rs.getString("data"))
        .schedule(schedule(rs))
        .startAt(instant(rs, "start_at"))
        .initialDelay(duration(rs, "initial_delay"))
        .misfire(misfire(rs))
        .retry(retry(rs))
        .jitter(duration(rs, "jitter"))
        .overlap(overlap(rs))
        .excluding(calendar(rs), calendarPolicy(rs));
  }

  private static String calendar(ResultSet rs) throws SQLException {
    return rs.getString("calendar_name");
  }

  private static CalendarPolicy calendarPolicy(ResultSet rs) throws SQLException {
    CalendarPolicy p = constant(rs, "calendar_policy", CalendarPolicy.class);
    if ((p == null) != (calendar(rs) == null)) {
      throw new IllegalArgumentException(
          "calendar_policy " + p + " with calendar_name " + calendar(rs) + ": both or neither");
    }
    return p == null ? CalendarPolicy.SKIP : p;
  }

  private static Schedule schedule(ResultSet rs) throws SQLException {
    String kind = rs.getString("schedule_kind");
    switch (String.valueOf(kind)) {
      case "FIXED_RATE":
        return new Schedule.FixedRate(required(duration(rs, "fixed_period"), "fixed_period"));
      case "FIXED_DELAY":
        return new Schedule.FixedDelay(required(duration(rs, "fixed_period"), "fixed_period"));
      case "ONCE":
        var once = new Schedule.Once(instant(rs, "once_at"), duration(rs, "once_delay"));
        if (once.at() == null && once.delay() == null) {
          throw new IllegalArgumentException("one-shot job with neither once_at nor once_delay");
        }
        return once;
      case "CRON":
        return new Schedule.Cron(
            required(rs.getString("cron_expression"), "cron_expression"),
            Values.zone(rs, "cron_zone"),
            constant(rs, "cron_syntax", CronSyntax.class),
            dst(rs));
      default:
        throw new IllegalArgumentException("unknown schedule_kind '" + kind + "'");
    }
  }

  private static DstPolicy dst(ResultSet rs) throws SQLException {
    DstPolicy.Gap gap = constant(rs, "dst_gap", DstPolicy.Gap.class);
    DstPolicy.Overlap overlap = constant(rs, "dst_overlap", DstPolicy.Overlap.class);
    return gap == null && overlap == null ? null : new DstPolicy(gap, overlap);
  }

  private static Misfire misfire(ResultSet rs) throws SQLException {
    String kind = rs.getString("misfire_kind");
    if (kind == null) {
      return null;
    }
    var threshold = duration(rs, "misfire_threshold");
    var window = duration(rs, "catch_up_window");
    if (window != null && !kind.equals("CATCH_UP")) {
      throw new IllegalArgumentException(
          "catch_up_window " + window + " on misfire_kind '" + kind + "': only CATCH_UP has one");
    }
    switch (kind) {
      case "CATCH_UP":
        return new Misfire.CatchUp(
            required(integer(rs, "misfire_max"), "misfire_max"), threshold, window);
      case "FIRE_ONCE":
        return new Misfire.FireOnce(threshold);
      case "SKIP":
        return new Misfire.Skip(threshold);
      default:
        throw new IllegalArgumentException("unknown misfire_kind '" + kind + "'");
    }
  }

  private static Retry retry(ResultSet rs) throws SQLException {
    Integer max = integer(rs, "retry_max_attempts");
    return max == null ? null : new Retry(max, duration(rs, "retry_initial_delay"));
  }

  private static <T> T required(T value, String column) {
    if (value == null) {
      throw new IllegalArgumentException(column + " is null");
    }
    return value;
  }
}
