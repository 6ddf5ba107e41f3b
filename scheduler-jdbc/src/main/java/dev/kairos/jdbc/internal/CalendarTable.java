package dev.kairos.jdbc.internal;

import dev.kairos.BusinessCalendar;
import dev.kairos.spi.JobRules;
import java.sql.Date;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.SqlStatement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL of the calendars (schema version 7): one row per calendar in {@code <prefix>calendars}
 * (zone, a column per day of the week, the window as ISO-8601 local times, the last-business-day
 * rule) and one row per excluded date in {@code <prefix>calendar_dates}. No serialized blob: a
 * calendar can be read and edited in SQL. Every method runs inside the caller's transaction.
 */
final class CalendarTable {
  private static final Logger log = LoggerFactory.getLogger("dev.kairos.jdbc.JdbcStore");

  private final String calendars;
  private final String dates;
  private final String jobs;

  CalendarTable(String prefix) {
    calendars = prefix + "calendars";
    dates = prefix + "calendar_dates";
    jobs = prefix + "jobs";
  }

  /** Replaces the calendar's rows with {@code c}'s. */
  void put(Handle h, String name, BusinessCalendar c) {
    delete(h, name);
    var insert =
        h.createUpdate(
            "INSERT INTO "
                + calendars
                + " (calendar_name, zone_id, monday, tuesday, wednesday, thursday, friday,"
                + " saturday, sunday, window_from, window_until, last_business_day) VALUES (:name,"
                + " :zone, :monday, :tuesday, :wednesday, :thursday, :friday, :saturday, :sunday,"
                + " :from, :until, :last)");
    bindDays(insert, c.days());
    insert
        .bind("name", name)
        .bind("zone", c.zone().getId())
        .bind("from", c.from().map(LocalTime::toString).orElse(null))
        .bind("until", c.until().map(LocalTime::toString).orElse(null))
        .bind("last", c.lastBusinessDayOnly())
        .execute();
    if (!c.excludedDates().isEmpty()) {
      var batch =
          h.prepareBatch(
              "INSERT INTO " + dates + " (calendar_name, excluded_date) VALUES (:name, :date)");
      for (LocalDate d : c.excludedDates()) {
        batch.bind("name", name).bind("date", Date.valueOf(d)).add();
      }
      batch.execute();
    }
  }

  private static void bindDays(SqlStatement<?> s, Set<DayOfWeek> days) {
    for (DayOfWeek d : DayOfWeek.values()) {
      s.bind(d.name().toLowerCase(Locale.ROOT), days.contains(d));
    }
  }

  /** Deletes the calendar's rows; true if it had any. */
  boolean delete(Handle h, String name) {
    // The calendar's row first: its lock (or, for a new name, its insert's unique key) orders
    // every writer of one name, so a writer's dates are read and deleted only once it committed.
    // Dates first let two racing puts on MariaDB leave the dates of both.
    boolean existed =
        h.createUpdate("DELETE FROM " + calendars + " WHERE calendar_name = :name")
                .bind("name", name)
                .execute()
            > 0;
    h.createUpdate("DELETE FROM " + dates + " WHERE calendar_name = :name")
        .bind("name", name)
        .execute();
    return existed;
  }

  /**
   * Locks the calendar's row for its deletion until the transaction ends: waits for the writers and
   * upserts that hold it, and keeps new ones out.
   */
  void lockForDelete(Handle h, String name) {
    h.createQuery(
            "SELECT calendar_name FROM " + calendars + " WHERE calendar_name = :name FOR UPDATE")
        .bind("name", name)
        .mapTo(String.class)
        .findOne();
  }

  /**
   * Locks the calendar's row against writers until the transaction ends (shared where the dialect
   * can), so that a racing {@link #delete} waits for it and then sees the jobs it attached; false
   * if no calendar of that name is stored.
   */
  boolean lock(Handle h, Dialect dialect, String name) {
    return h.createQuery(
            "SELECT calendar_name FROM "
                + calendars
                + " WHERE calendar_name = :name "
                + dialect.sharedRowLock())
        .bind("name", name)
        .mapTo(String.class)
        .findOne()
        .isPresent();
  }

  /**
   * The keys of the jobs attached to the calendar, ordered; locking nothing but on MariaDB and
   * MySQL, where a locking read returns the newest committed rows whatever the transaction's level
   * (the application's own transaction at REPEATABLE READ would otherwise read its snapshot).
   */
  List<String> users(Handle h, Dialect dialect, String name) {
    return h.createQuery(
            "SELECT job_key FROM "
                + jobs
                + " WHERE calendar_name = :name ORDER BY job_key"
                + (dialect.mysqlFamily() ? " FOR UPDATE" : ""))
        .bind("name", name)
        .mapTo(String.class)
        .list();
  }

  /**
   * Every readable calendar by name; a calendar whose row maps to no calendar, or breaks {@link
   * JobRules#checkCalendar}, is logged once and left out (jobs attached to it are then refused).
   */
  SortedMap<String, BusinessCalendar> all(Handle h, Set<String> warned) {
    Map<String, List<LocalDate>> excluded = new HashMap<>();
    h.createQuery("SELECT calendar_name, excluded_date FROM " + dates)
        .map(
            (rs, ctx) -> {
              excluded
                  .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                  .add(rs.getDate(2).toLocalDate());
              return null;
            })
        .list();
    SortedMap<String, BusinessCalendar> out = new TreeMap<>();
    h.createQuery("SELECT * FROM " + calendars)
        .map(
            (rs, ctx) -> {
              String name = rs.getString("calendar_name");
              try {
                BusinessCalendar c = read(rs).excluding(excluded.getOrDefault(name, List.of()));
                JobRules.checkCalendar(name, c);
                out.put(name, c);
              } catch (IllegalArgumentException | DateTimeException e) {
                if (warned.add(name)) {
                  log.warn(
                      "calendar '{}': its stored rows cannot be read ({}); jobs attached to it are"
                          + " refused until it is stored again",
                      JobRules.printable(name),
                      e.getMessage());
                }
              }
              return null;
            })
        .list();
    return out;
  }

  private static BusinessCalendar read(ResultSet rs) throws SQLException {
    String zone = rs.getString("zone_id");
    if (zone == null) {
      throw new IllegalArgumentException("zone_id is null");
    }
    Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
    for (DayOfWeek d : DayOfWeek.values()) {
      if (rs.getBoolean(d.name().toLowerCase(Locale.ROOT))) {
        days.add(d);
      }
    }
    BusinessCalendar c = BusinessCalendar.in(ZoneId.of(zone)).days(days);
    String from = rs.getString("window_from");
    String until = rs.getString("window_until");
    if (from != null || until != null) {
      c =
          c.between(
              from == null ? null : LocalTime.parse(from),
              until == null ? null : LocalTime.parse(until));
    }
    return rs.getBoolean("last_business_day") ? c.lastBusinessDayOfMonth() : c;
  }
}
