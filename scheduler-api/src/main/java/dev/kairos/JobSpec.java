package dev.kairos;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;

/**
 * The definition of a job: its key, the handler that runs it, its data, when it fires and what it
 * does with misfires and failures. Immutable; each method returns a changed copy.
 *
 * <pre>{@code
 * scheduler.schedule(JobSpec.named("purge")
 *     .handler("purge-sessions")
 *     .fixedDelay(Duration.ofMinutes(5))
 *     .misfire(Misfire.skip()));
 * }</pre>
 *
 * <p>Values are checked by {@link Scheduler#schedule(JobSpec)}, which rejects a bad one with an
 * {@link IllegalArgumentException} naming the key and the value. Two specs are equal when every
 * part of the definition is equal; {@code schedule} keeps a stored job's state when its definition
 * has not changed.
 *
 * <p>First fire of a recurring job: at {@link #startAt(Instant)} (or, if that has passed, the first
 * slot of its timetable from now), else {@link #initialDelay(Duration)} after scheduling, else at
 * once.
 */
public final class JobSpec {
  private final String key;
  private final String handler;
  private final String data;
  private final Schedule schedule;
  private final Instant startAt;
  private final Duration initialDelay;
  private final Misfire misfire;
  private final Retry retry;

  /** The jitter bound, or null for none ({@code jitter(ZERO)} is stored as none). */
  private final Duration jitter;

  /** A schedule of another kind that a later schedule method replaced, or null: a mistake. */
  private final Schedule conflicting;

  /** The calendar the job is attached to and its policy, or null for none. */
  private final Exclusion exclusion;

  /** The overlap policy (see {@link #overlap(Overlap)}). */
  private final Overlap overlap;

  /** A job's calendar by name, and what an excluded fire does. */
  private record Exclusion(String calendar, CalendarPolicy policy) {}

  private JobSpec(
      String key,
      String handler,
      String data,
      Schedule schedule,
      Instant startAt,
      Duration initialDelay,
      Misfire misfire,
      Retry retry,
      Duration jitter,
      Schedule conflicting,
      Exclusion exclusion,
      Overlap overlap) {
    this.key = key;
    this.handler = handler;
    this.data = data;
    this.schedule = schedule;
    this.startAt = startAt;
    this.initialDelay = initialDelay;
    this.misfire = misfire;
    this.retry = retry;
    this.jitter = jitter;
    this.conflicting = conflicting;
    this.exclusion = exclusion;
    this.overlap = overlap;
  }

  /** The parts of a spec, to copy one with some of them changed ({@link #with}). */
  private static final class Parts {
    String key;
    String handler;
    String data;
    Schedule schedule;
    Instant startAt;
    Duration initialDelay;
    Misfire misfire;
    Retry retry;
    Duration jitter;
    Schedule conflicting;
    Exclusion exclusion;
    Overlap overlap;
  }

  /** A copy of this spec with the parts {@code change} sets. */
  private JobSpec with(java.util.function.Consumer<Parts> change) {
    Parts p = new Parts();
    p.key = key;
    p.handler = handler;
    p.data = data;
    p.schedule = schedule;
    p.startAt = startAt;
    p.initialDelay = initialDelay;
    p.misfire = misfire;
    p.retry = retry;
    p.jitter = jitter;
    p.conflicting = conflicting;
    p.exclusion = exclusion;
    p.overlap = overlap;
    change.accept(p);
    return new JobSpec(
        p.key,
        p.handler,
        p.data,
        p.schedule,
        p.startAt,
        p.initialDelay,
        p.misfire,
        p.retry,
        p.jitter,
        p.conflicting,
        p.exclusion,
        p.overlap);
  }

  /**
   * Starts the definition of the job with this key (unique within a store).
   *
   * @param key the job's key
   * @return a definition with only its key set
   */
  public static JobSpec named(String key) {
    return new JobSpec(
        key,
        null,
        null,
        null,
        null,
        null,
        Misfire.fireOnce(),
        Retry.none(),
        null,
        null,
        null,
        Overlap.forbid());
  }

  /**
   * The name of the registered handler that runs this job.
   *
   * @param handler the name of a registered handler
   * @return the changed copy
   */
  public JobSpec handler(String handler) {
    return with(p -> p.handler = handler);
  }

  /**
   * Data handed to every run (for example JSON); stored as text.
   *
   * @param data the data, for example JSON
   * @return the changed copy
   */
  public JobSpec data(String data) {
    return with(p -> p.data = data);
  }

  /**
   * Fires every {@code period}, measured between scheduled fire times (at least 1 ms).
   *
   * @param period the period
   * @return the changed copy
   */
  public JobSpec fixedRate(Duration period) {
    return only(new Schedule.FixedRate(period));
  }

  /**
   * Fires {@code delay} after the previous run ended.
   *
   * @param delay the delay
   * @return the changed copy
   */
  public JobSpec fixedDelay(Duration delay) {
    return only(new Schedule.FixedDelay(delay));
  }

  /**
   * Fires once, at {@code instant}.
   *
   * @param instant the fire time
   * @return the changed copy
   */
  public JobSpec at(Instant instant) {
    return only(new Schedule.Once(instant, null));
  }

  /**
   * Fires once, {@code delay} after the job is first scheduled.
   *
   * @param delay the delay
   * @return the changed copy
   */
  public JobSpec after(Duration delay) {
    return only(new Schedule.Once(null, delay));
  }

  /**
   * Fires when the Quartz-syntax cron expression matches, in the scheduler's default zone (resolved
   * and stored when the job is first scheduled).
   *
   * @param expression the cron expression
   * @return the changed copy
   */
  public JobSpec cron(String expression) {
    return cron(expression, null, CronSyntax.QUARTZ);
  }

  /**
   * Fires when the Quartz-syntax cron expression matches in {@code zone}.
   *
   * @param expression the cron expression
   * @param zone the time zone the expression is read in
   * @return the changed copy
   */
  public JobSpec cron(String expression, ZoneId zone) {
    return cron(expression, zone, CronSyntax.QUARTZ);
  }

  /**
   * Fires when the expression, written in {@code syntax}, matches in {@code zone}.
   *
   * @param expression the cron expression
   * @param zone the time zone the expression is read in
   * @param syntax the syntax the expression is written in
   * @return the changed copy
   */
  public JobSpec cron(String expression, ZoneId zone, CronSyntax syntax) {
    return only(new Schedule.Cron(expression, zone, syntax, DstPolicy.defaults()));
  }

  /**
   * Replaces the daylight-saving policy of a cron schedule (ignored by other schedules).
   *
   * @param dst the daylight-saving policy
   * @return the changed copy
   */
  public JobSpec dst(DstPolicy dst) {
    if (schedule instanceof Schedule.Cron c) {
      return only(new Schedule.Cron(c.expression(), c.zone(), c.syntax(), dst));
    }
    return this;
  }

  /**
   * Sets the schedule; one of another kind set before is remembered as a conflict, which {@code
   * schedule} rejects: {@code fixedRate(...).cron(...)} is a mistake, not a replacement.
   */
  private JobSpec only(Schedule next) {
    Schedule conflict =
        schedule != null && schedule.getClass() != next.getClass() ? schedule : conflicting;
    return with(
        p -> {
          p.schedule = next;
          p.conflicting = conflict;
        });
  }

  /**
   * Sets the schedule directly, replacing any set before.
   *
   * @param schedule the schedule
   * @return the changed copy
   */
  public JobSpec schedule(Schedule schedule) {
    return with(
        p -> {
          p.schedule = schedule;
          p.conflicting = null;
        });
  }

  /**
   * The first fire of a recurring job is at this instant (or its first slot after now).
   *
   * @param startAt the first fire time
   * @return the changed copy
   */
  public JobSpec startAt(Instant startAt) {
    return with(p -> p.startAt = startAt);
  }

  /**
   * The first fire of a recurring job is this long after it is first scheduled.
   *
   * @param initialDelay the delay before the first fire
   * @return the changed copy
   */
  public JobSpec initialDelay(Duration initialDelay) {
    return with(p -> p.initialDelay = initialDelay);
  }

  /**
   * The misfire policy; default {@link Misfire#fireOnce()} with a one-second threshold.
   *
   * @param misfire the misfire policy
   * @return the changed copy
   */
  public JobSpec misfire(Misfire misfire) {
    return with(p -> p.misfire = misfire);
  }

  /**
   * The retry policy for failed runs; default {@link Retry#none()}.
   *
   * @param retry the retry policy
   * @return the changed copy
   */
  public JobSpec retry(Retry retry) {
    return with(p -> p.retry = retry);
  }

  /**
   * Spreads the job's timetable fires: each fire is due at its scheduled fire time plus an offset
   * in {@code [0, jitter)}, the same on every instance and after every restart (it is computed from
   * the key and the scheduled fire time). Applies to fixed-rate, fixed-delay and cron schedules;
   * {@code schedule} refuses it on a one-shot (whose time is explicit), refuses a negative jitter
   * and, for a fixed rate, a jitter not shorter than the period (fires would overtake each other).
   * {@link Duration#ZERO} means none.
   *
   * <p>The scheduled fire time stays the identity of the fire: {@code
   * JobContext.scheduledFireTime()} and {@code JobInfo.nextFireTime()} show it unjittered, and the
   * misfire threshold is measured from the jittered due time, so jitter never turns an on-time fire
   * into a misfire.
   *
   * <pre>{@code
   * // 5,000 hourly jobs, spread over the first ten minutes of each hour
   * JobSpec.named("poll-" + id).handler("poll").cron("0 0 * * * ?").jitter(Duration.ofMinutes(10));
   * }</pre>
   *
   * @param jitter the exclusive upper bound of the offset; zero for none
   * @return the changed copy
   */
  public JobSpec jitter(Duration jitter) {
    Duration j = jitter != null && jitter.isZero() ? null : jitter;
    return with(p -> p.jitter = j);
  }

  /**
   * The overlap policy: what happens to fires that come due while a run of this job is still going;
   * default {@link Overlap#forbid()} (they wait, then the misfire policy judges them). See {@link
   * Overlap}.
   *
   * <pre>{@code
   * // a poll every 10 s that sometimes takes a minute: never queue polls behind a slow one
   * JobSpec.named("poll").handler("poll").fixedRate(Duration.ofSeconds(10)).overlap(Overlap.skip());
   * }</pre>
   *
   * @param overlap the overlap policy
   * @return the changed copy
   */
  public JobSpec overlap(Overlap overlap) {
    return with(p -> p.overlap = overlap);
  }

  /**
   * Attaches the job to the stored calendar with this name ({@link Scheduler#putCalendar}): a fire
   * the calendar excludes is dropped ({@link CalendarPolicy#SKIP}). {@code schedule} refuses a
   * calendar that is not stored. {@code null} detaches the job.
   *
   * @param calendarName the calendar's name, or null for none
   * @return the changed copy
   */
  public JobSpec excluding(String calendarName) {
    return excluding(calendarName, CalendarPolicy.SKIP);
  }

  /**
   * Attaches the job to the stored calendar with this name, with the policy for excluded fires.
   *
   * <pre>{@code
   * JobSpec.named("settle").handler("settle").cron("0 0 6 * * ?", zone)
   *     .excluding("target-holidays", CalendarPolicy.NEXT_ALLOWED);
   * }</pre>
   *
   * @param calendarName the calendar's name, or null for none
   * @param policy what an excluded fire does
   * @return the changed copy
   */
  public JobSpec excluding(String calendarName, CalendarPolicy policy) {
    Exclusion x =
        calendarName == null
            ? null
            : new Exclusion(calendarName, Objects.requireNonNull(policy, "policy"));
    return with(p -> p.exclusion = x);
  }

  /**
   * The job's key.
   *
   * @return the job's key
   */
  public String key() {
    return key;
  }

  /**
   * The handler name (null until set; {@code schedule} rejects a spec without one).
   *
   * @return the handler name (null until set; {@code schedule} rejects a spec without one)
   */
  public String handler() {
    return handler;
  }

  /**
   * The job's data, if any.
   *
   * @return the job's data, if any
   */
  public Optional<String> data() {
    return Optional.ofNullable(data);
  }

  /**
   * The schedule (null until set; {@code schedule} rejects a spec without one).
   *
   * @return the schedule (null until set; {@code schedule} rejects a spec without one)
   */
  public Schedule schedule() {
    return schedule;
  }

  /**
   * The first fire instant of a recurring job, if set.
   *
   * @return the first fire instant of a recurring job, if set
   */
  public Optional<Instant> startAt() {
    return Optional.ofNullable(startAt);
  }

  /**
   * The delay before the first fire of a recurring job, if set.
   *
   * @return the delay before the first fire of a recurring job, if set
   */
  public Optional<Duration> initialDelay() {
    return Optional.ofNullable(initialDelay);
  }

  /**
   * A schedule of another kind that a later schedule method ({@code fixedRate}, {@code cron}, ...)
   * replaced on this spec, if any. {@link Scheduler#schedule(JobSpec)} rejects such a spec: a job
   * has one schedule; {@link #schedule(Schedule)} replaces it on purpose and clears this.
   *
   * @return the replaced schedule, or empty
   */
  public Optional<Schedule> conflictingSchedule() {
    return Optional.ofNullable(conflicting);
  }

  /**
   * The misfire policy.
   *
   * @return the misfire policy
   */
  public Misfire misfire() {
    return misfire;
  }

  /**
   * The retry policy.
   *
   * @return the retry policy
   */
  public Retry retry() {
    return retry;
  }

  /**
   * The jitter bound, if set (see {@link #jitter(Duration)}).
   *
   * @return the jitter bound, or empty for none
   */
  public Optional<Duration> jitter() {
    return Optional.ofNullable(jitter);
  }

  /**
   * The name of the calendar the job is attached to, if any (see {@link #excluding(String)}).
   *
   * @return the calendar's name, or empty for none
   */
  public Optional<String> calendar() {
    return Optional.ofNullable(exclusion).map(Exclusion::calendar);
  }

  /**
   * What a fire the job's calendar excludes does; {@link CalendarPolicy#SKIP} when it has none.
   *
   * @return the calendar policy
   */
  public CalendarPolicy calendarPolicy() {
    return exclusion == null ? CalendarPolicy.SKIP : exclusion.policy();
  }

  /**
   * The overlap policy (see {@link #overlap(Overlap)}); null only if set so, which {@code schedule}
   * refuses.
   *
   * @return the overlap policy
   */
  public Overlap overlap() {
    return overlap;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobSpec s
        && Objects.equals(key, s.key)
        && Objects.equals(handler, s.handler)
        && Objects.equals(data, s.data)
        && Objects.equals(schedule, s.schedule)
        && Objects.equals(startAt, s.startAt)
        && Objects.equals(initialDelay, s.initialDelay)
        && Objects.equals(misfire, s.misfire)
        && Objects.equals(retry, s.retry)
        && Objects.equals(jitter, s.jitter)
        && Objects.equals(exclusion, s.exclusion)
        && Objects.equals(overlap, s.overlap);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        key,
        handler,
        data,
        schedule,
        startAt,
        initialDelay,
        misfire,
        retry,
        jitter,
        exclusion,
        overlap);
  }

  @Override
  public String toString() {
    return "JobSpec[key="
        + key
        + ", handler="
        + handler
        + ", schedule="
        + schedule
        + (startAt != null ? ", startAt=" + startAt : "")
        + (initialDelay != null ? ", initialDelay=" + initialDelay : "")
        + ", misfire="
        + misfire
        + ", retry="
        + retry
        + (jitter != null ? ", jitter=" + jitter : "")
        + (exclusion != null ? ", calendar=" + exclusion.calendar() + "/" + exclusion.policy() : "")
        + (overlap != Overlap.forbid() ? ", overlap=" + overlap : "")
        + "]";
  }
}
