package dev.kairos.dashboard;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Schedule;
import dev.kairos.engine.CronPreview;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Schedules and misfire policies in words, and a stored job's coming fire times: what the
 * dashboard's pages and the command-line tool show.
 */
public final class Schedules {
  private Schedules() {}

  /**
   * For example "every 5 minutes (cron 0 0/5 * * * ?, Europe/Berlin)" or "every 5m (fixed rate)".
   *
   * @param s the schedule
   * @return the description
   */
  public static String describe(Schedule s) {
    if (s instanceof Schedule.FixedRate r) {
      return "every " + human(r.period()) + " (fixed rate)";
    }
    if (s instanceof Schedule.FixedDelay d) {
      return human(d.delay()) + " after each run ends (fixed delay)";
    }
    if (s instanceof Schedule.Once o) {
      return o.at() != null ? "once, at " + o.at() : "once, " + human(o.delay()) + " after created";
    }
    if (s instanceof Schedule.Cron c) {
      String words;
      try {
        words = CronPreview.describe(c.expression(), c.syntax(), Locale.ENGLISH);
      } catch (IllegalArgumentException e) {
        words = "invalid cron expression";
      }
      return words
          + " (cron "
          + c.expression()
          + ", "
          + (c.zone() == null ? "default zone" : c.zone().getId())
          + ")";
    }
    return String.valueOf(s);
  }

  /**
   * For example "fire once (threshold 1s)".
   *
   * @param m the misfire policy
   * @return the description
   */
  public static String describe(Misfire m) {
    String policy;
    if (m instanceof Misfire.CatchUp c) {
      policy = c.max() == Integer.MAX_VALUE ? "catch up" : "catch up newest " + c.max();
      if (c.window() != null) {
        policy += " within " + human(c.window());
      }
    } else if (m instanceof Misfire.FireOnce) {
      policy = "fire once";
    } else {
      policy = "skip";
    }
    return policy + " (threshold " + human(m.threshold()) + ")";
  }

  /**
   * A duration as ISO-8601 without the "PT", lower case: 5m, 1h30m, 0.5s, 24h.
   *
   * @param d the duration
   * @return the short text
   */
  public static String human(Duration d) {
    return d == null ? "" : d.toString().substring(2).toLowerCase(Locale.ROOT);
  }

  /**
   * The zone a job's times are best read in: its cron zone, else {@code fallback}.
   *
   * @param spec the job definition
   * @param fallback the zone for jobs without a cron zone
   * @return the zone
   */
  public static ZoneId zoneOf(JobSpec spec, ZoneId fallback) {
    return spec.schedule() instanceof Schedule.Cron c && c.zone() != null ? c.zone() : fallback;
  }

  /**
   * The job's next {@code n} fire times from its stored next fire time: a fixed rate or cron
   * timetable continues from it; a fixed delay's later fires depend on when runs end, and a
   * one-shot has one, so those give only the stored one.
   *
   * @param info the stored job
   * @param n how many fire times at most
   * @return up to {@code n} fire times; empty if the job has no next fire
   */
  public static List<Instant> nextFires(JobInfo info, int n) {
    Instant next = info.nextFireTime();
    if (next == null || n <= 0) {
      return List.of();
    }
    List<Instant> fires = new ArrayList<>(n);
    fires.add(next);
    Schedule s = info.spec().schedule();
    if (s instanceof Schedule.FixedRate r) {
      for (int i = 1; i < n; i++) {
        fires.add(next.plus(r.period().multipliedBy(i)));
      }
    } else if (s instanceof Schedule.Cron) {
      JobSpec timetable = info.spec().startAt(null).initialDelay(null);
      for (Instant t : CronPreview.nextFireTimes(timetable, next, n, ZoneId.of("UTC"))) {
        if (t.isAfter(next) && fires.size() < n) {
          fires.add(t);
        }
      }
    }
    return fires;
  }
}
