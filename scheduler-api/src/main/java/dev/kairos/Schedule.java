package dev.kairos;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

/**
 * When a job fires. Built through {@link JobSpec} ({@code fixedRate}, {@code fixedDelay}, {@code
 * at}, {@code after}, {@code cron}); values are validated when the job is scheduled, so a bad value
 * is reported with the job's key.
 */
public sealed interface Schedule
    permits Schedule.FixedRate, Schedule.FixedDelay, Schedule.Once, Schedule.Cron {

  /**
   * Each next fire is due at the previous <em>scheduled</em> fire time plus the period, whatever
   * the runs take; overruns produce misfires, handled by the job's {@link Misfire} policy.
   *
   * @param period time between scheduled fires; positive
   */
  record FixedRate(Duration period) implements Schedule {}

  /**
   * Each next fire is due the delay after the previous run <em>ended</em>; a slow run pushes the
   * timetable back instead of piling up fires.
   *
   * @param delay gap between the end of one run and the start of the next; positive
   */
  record FixedDelay(Duration delay) implements Schedule {}

  /**
   * Exactly one fire: at an instant, or a delay after the job was first scheduled. Exactly one of
   * the two is non-null.
   *
   * @param at the instant of the fire, or null when {@code delay} is given
   * @param delay the delay from first scheduling, or null when {@code at} is given
   */
  record Once(Instant at, Duration delay) implements Schedule {}

  /**
   * Fires when a cron expression matches, in a time zone.
   *
   * @param expression the cron expression, in {@code syntax}
   * @param zone the zone the expression is read in; null until the scheduler resolves it to its
   *     default zone when the job is scheduled
   * @param syntax the cron dialect of the expression
   * @param dst what to do with local times that daylight saving skips or repeats
   */
  record Cron(String expression, ZoneId zone, CronSyntax syntax, DstPolicy dst)
      implements Schedule {}
}
