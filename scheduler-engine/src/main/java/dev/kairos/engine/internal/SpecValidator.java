package dev.kairos.engine.internal;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.JobSpec;
import dev.kairos.Schedule;
import dev.kairos.spi.JobRules;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Set;

/**
 * Checks a {@link JobSpec} before anything is stored: {@link JobRules} (shared with the stores
 * reading rows back), the registered handlers and the cron expression; and resolves what the
 * scheduler fills in (the cron zone). Every message names the job key and the offending value.
 */
public final class SpecValidator {
  /** Longest job key and handler name: the stores' column width. */
  public static final int MAX_KEY_LENGTH = 200;

  /** Longest cron expression: the stores' column width. */
  public static final int MAX_CRON_LENGTH = 400;

  /** Longest time-zone id: the stores' column width. */
  public static final int MAX_ZONE_LENGTH = 100;

  /** Shortest fixed-rate period or fixed delay: 1 ms ({@link JobRules#MIN_PERIOD}). */
  public static final Duration MIN_PERIOD = JobRules.MIN_PERIOD;

  /** How much of an over-long value an error message quotes. */
  private static final int QUOTED = 40;

  private final Set<String> handlers;
  private final ZoneId defaultZone;

  /**
   * @param handlers names of the registered handlers
   * @param defaultZone zone of cron schedules that name none
   */
  public SpecValidator(Set<String> handlers, ZoneId defaultZone) {
    this(handlers, defaultZone, true);
  }

  /**
   * @param handlers names of the registered handlers
   * @param defaultZone zone of cron schedules that name none
   * @param concurrentRuns whether the store keeps concurrent runs (else {@code Overlap.allow(n)}, n
   *     > 1, is refused)
   */
  public SpecValidator(Set<String> handlers, ZoneId defaultZone, boolean concurrentRuns) {
    this(handlers, defaultZone, concurrentRuns, text -> null);
  }

  /**
   * @param handlers names of the registered handlers
   * @param defaultZone zone of cron schedules that name none
   * @param concurrentRuns whether the store keeps concurrent runs
   * @param unholdable why the store cannot hold a text, or null ({@link
   *     dev.kairos.spi.JobStore#unholdable})
   */
  public SpecValidator(
      Set<String> handlers,
      ZoneId defaultZone,
      boolean concurrentRuns,
      java.util.function.UnaryOperator<String> unholdable) {
    this.handlers = handlers;
    this.defaultZone = defaultZone;
    this.concurrentRuns = concurrentRuns;
    this.unholdable = unholdable;
  }

  /** Asks the store whether it can hold a text. */
  private final java.util.function.UnaryOperator<String> unholdable;

  /** Refuses a text of the spec that the store cannot hold, naming the field. */
  private void checkHoldable(String key, String field, String text) {
    String problem = text == null ? null : unholdable.apply(text);
    if (problem != null) {
      throw bad(key, field + " " + problem);
    }
  }

  /** Whether the store keeps concurrent runs ({@code Overlap.allow}). */
  private final boolean concurrentRuns;

  /**
   * Returns the spec, with defaults resolved, or throws {@link IllegalArgumentException} naming the
   * key and the problem.
   */
  public JobSpec validate(JobSpec spec) {
    if (spec == null) {
      throw new NullPointerException("spec must not be null");
    }
    String key = spec.key();
    if (key == null || key.isBlank()) {
      JobRules.checkKey(key); // throws, saying which
    }
    if (key.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "job key is "
              + key.length()
              + " characters long, more than "
              + MAX_KEY_LENGTH
              + ": '"
              + abbreviate(key)
              + "'");
    }
    JobRules.checkSpec(spec); // the rules every stored row is read by, too
    String handler = spec.handler(); // not blank: JobRules checked it
    if (!handlers.contains(handler)) {
      throw bad(key, "handler '" + handler + "' is not registered (registered: " + handlers + ")");
    }
    if (spec.schedule() == null) {
      throw bad(key, "no schedule: call fixedRate, fixedDelay, at, after or cron");
    }
    if (spec.conflictingSchedule().isPresent()) {
      throw bad(
          key,
          "two schedules set, "
              + spec.conflictingSchedule().get()
              + " and then "
              + spec.schedule()
              + "; a job has one schedule (schedule(Schedule) replaces it on purpose)");
    }
    if (!concurrentRuns && spec.overlap() instanceof dev.kairos.Overlap.Allow a && a.runs() > 1) {
      throw bad(
          key,
          "overlap "
              + a
              + " needs a store that keeps concurrent runs (JobStore.supportsConcurrentRuns());"
              + " this one does not");
    }
    checkHoldable(key, "key", key);
    checkHoldable(key, "handler name", handler);
    checkHoldable(key, "data", spec.data().orElse(null));
    checkHoldable(key, "calendar name", spec.calendar().orElse(null));
    return spec.schedule(checkSchedule(key, spec.schedule()));
  }

  /** The schedule with what the scheduler fills in; the rest {@link JobRules} checked already. */
  private Schedule checkSchedule(String key, Schedule schedule) {
    return schedule instanceof Schedule.Cron c ? checkCron(key, c) : schedule;
  }

  private Schedule.Cron checkCron(String key, Schedule.Cron c) {
    if (c.expression() == null || c.expression().isBlank()) {
      throw bad(key, "cron expression is null or blank");
    }
    if (c.expression().length() > MAX_CRON_LENGTH) {
      throw bad(
          key,
          "cron expression is "
              + c.expression().length()
              + " characters long, more than "
              + MAX_CRON_LENGTH
              + ": '"
              + abbreviate(c.expression())
              + "'");
    }
    noNul(key, "cron expression", c.expression());
    if (c.zone() != null && c.zone().getId().length() > MAX_ZONE_LENGTH) {
      throw bad(key, "time-zone id longer than " + MAX_ZONE_LENGTH + ": " + c.zone().getId());
    }
    Schedule.Cron resolved =
        new Schedule.Cron(
            c.expression().trim(),
            c.zone() == null ? defaultZone : c.zone(),
            c.syntax() == null ? CronSyntax.QUARTZ : c.syntax(),
            c.dst() == null ? DstPolicy.defaults() : c.dst());
    CronTimetable.validate(key, resolved);
    return resolved;
  }

  private static void noNul(String key, String what, String value) {
    int at = value.indexOf('\0');
    if (at >= 0) {
      throw bad(
          key,
          what
              + " contains the NUL character (\\u0000) at index "
              + at
              + ", which PostgreSQL cannot store");
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= QUOTED ? s : printable(s.substring(0, QUOTED)) + "...";
  }

  private static String printable(String s) {
    return s.replace("\0", "\\u0000");
  }

  static IllegalArgumentException bad(String key, String problem) {
    return new IllegalArgumentException("job '" + key + "': " + problem);
  }
}
