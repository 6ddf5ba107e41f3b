package dev.kairos.jdbc.internal;

import static dev.kairos.jdbc.internal.Values.constant;
import static dev.kairos.jdbc.internal.Values.decimal;
import static dev.kairos.jdbc.internal.Values.instant;
import static dev.kairos.jdbc.internal.Values.name;

import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.RunStats;
import dev.kairos.spi.ScheduleState;
import dev.kairos.spi.WindowCursor;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.List;

/** A {@link JobRecord} as a row of the jobs table, and back. */
public final class JobRows {
  /** The schedule-state columns, each bound under its own name. */
  static final List<String> SCHEDULE =
      List.of("state", "next_fire_time", "due_time", "due_kind", "attempt");

  /** The statistics columns, each bound under its own name. */
  static final List<String> STATS =
      List.of(
          "last_scheduled_fire_time",
          "last_start",
          "last_end",
          "last_outcome",
          "last_error",
          "run_count",
          "failure_count");

  private JobRows() {}

  /**
   * One row as read: its key, due time, version and claim owner, which are always readable, and its
   * record, or null with the reason when some column holds a value no record maps to, or the record
   * breaks {@link JobRules#checkRecord(JobRecord)} (a row edited by hand, or written by a newer
   * Kairos).
   */
  public record Row(
      String key, Instant dueTime, long version, String owner, JobRecord record, String problem) {
    /** True when the row maps to a record. */
    public boolean readable() {
      return record != null;
    }

    /** The row's position in the (due time, key) order. */
    public WindowCursor cursor() {
      return new WindowCursor(dueTime, key);
    }
  }

  static Row read(ResultSet rs) throws SQLException {
    String key = rs.getString("job_key");
    Instant due = cursorTime(rs.getBigDecimal("due_time"));
    long version = rs.getLong("version");
    String owner = rs.getString("owner");
    try {
      JobRecord r = record(rs, key);
      JobRules.checkRecord(r);
      return new Row(key, due, version, owner, r, null);
    } catch (IllegalArgumentException | DateTimeException | ArithmeticException e) {
      return new Row(key, due, version, owner, null, JobRules.withoutKey(e.getMessage(), key));
    }
  }

  /**
   * The due time as a cursor position; a value beyond the instant range (the row is unreadable and
   * skipped) is clamped to the end it passes, which keeps pages after it in order.
   */
  private static Instant cursorTime(BigDecimal due) {
    try {
      return Values.instant(due);
    } catch (DateTimeException | ArithmeticException e) {
      return due.signum() < 0 ? Instant.MIN : Instant.MAX;
    }
  }

  private static JobRecord record(ResultSet rs, String key) throws SQLException {
    return new JobRecord(
        SpecColumns.read(rs, key),
        new ScheduleState(
            required(constant(rs, "state", JobState.class), "state"),
            instant(rs, "next_fire_time"),
            instant(rs, "due_time"),
            constant(rs, "due_kind", FireKind.class),
            rs.getInt("attempt")),
        new RunStats(
            instant(rs, "last_scheduled_fire_time"),
            instant(rs, "last_start"),
            instant(rs, "last_end"),
            constant(rs, "last_outcome", RunOutcome.class),
            rs.getString("last_error"),
            rs.getLong("run_count"),
            rs.getLong("failure_count")),
        version(rs));
  }

  /** The row's version: no store writes a negative one. */
  private static long version(ResultSet rs) throws SQLException {
    long v = rs.getLong("version");
    if (v < 0) {
      throw new IllegalArgumentException("version must not be negative: " + v);
    }
    return v;
  }

  /** Binds every column of the record except the key and the version. */
  static void bindAll(Columns s, JobRecord r) throws SQLException {
    SpecColumns.bind(s, r.spec());
    bindSchedule(s, r);
    bindStats(s, r);
  }

  static void bindSchedule(Columns s, JobRecord r) throws SQLException {
    s.text("state", name(r.state()))
        .number("next_fire_time", decimal(r.nextFireTime()))
        .number("due_time", decimal(r.dueTime()))
        .text("due_kind", name(r.dueKind()))
        .integer("attempt", r.attempt());
  }

  static void bindStats(Columns s, JobRecord r) throws SQLException {
    s.number("last_scheduled_fire_time", decimal(r.lastScheduledFireTime()))
        .number("last_start", decimal(r.lastStart()))
        .number("last_end", decimal(r.lastEnd()))
        .text("last_outcome", name(r.lastOutcome()))
        .text("last_error", JobRules.storableError(r.lastError()))
        .bigint("run_count", r.runCount())
        .bigint("failure_count", r.failureCount());
  }

  private static <T> T required(T value, String column) {
    if (value == null) {
      throw new IllegalArgumentException(column + " is null");
    }
    return value;
  }
}
