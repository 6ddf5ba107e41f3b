package dev.kairos.engine;

import dev.kairos.BusinessCalendar;
import dev.kairos.CronSyntax;
import dev.kairos.JobSpec;
import dev.kairos.engine.internal.CronCompiler;
import dev.kairos.engine.internal.Jitter;
import dev.kairos.engine.internal.SpecValidator;
import dev.kairos.engine.internal.Timetable;
import dev.kairos.engine.internal.Timetables;
import dev.kairos.spi.JobRules;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Shows what a schedule will do before it is scheduled: its next fire times and, for cron, a
 * description in words. Pure functions; no scheduler needed.
 *
 * <pre>{@code
 * CronPreview.nextFireTimes(
 *     JobSpec.named("report").cron("0 30 2 * * ?", ZoneId.of("Europe/Berlin")),
 *     Instant.parse("2026-03-28T00:00:00Z"), 3);
 * // 2026-03-28T01:30:00Z, 2026-03-29T01:00:00Z (03:00 CEST: 02:30 does not exist), ...
 * CronPreview.describe("0 30 2 * * ?", CronSyntax.QUARTZ, Locale.ENGLISH);
 * // "at 02:30"
 * }</pre>
 */
public final class CronPreview {
  private CronPreview() {}

  /**
   * The first {@code n} fire times of the spec's schedule after {@code from}, as the scheduler
   * would compute them for a job scheduled at {@code from} (a fixed delay is taken as runs that
   * take no time). A cron schedule without a zone is read in the system default zone. The spec is
   * validated as {@code schedule} does, except that it needs no registered handler. These are the
   * scheduled fire times, without jitter; {@link #nextDueTimes} shows when each fire is due.
   *
   * @param spec the job spec whose schedule to preview
   * @param from the instant the job is taken to be scheduled at
   * @param n how many fire times to compute, 0 or more
   * @return up to {@code n} fire times in order; fewer if the schedule ends
   * @throws IllegalArgumentException if the spec is invalid (naming its key) or {@code n < 0}
   */
  public static List<Instant> nextFireTimes(JobSpec spec, Instant from, int n) {
    return nextFireTimes(spec, from, n, ZoneId.systemDefault());
  }

  /**
   * As {@link #nextFireTimes(JobSpec, Instant, int)}, reading a cron schedule without a zone in
   * {@code defaultZone}.
   *
   * @param spec the job spec whose schedule to preview
   * @param from the instant the job is taken to be scheduled at
   * @param n how many fire times to compute, 0 or more
   * @param defaultZone the zone of a cron schedule that names none
   * @return up to {@code n} fire times in order; fewer if the schedule ends
   * @throws IllegalArgumentException if the spec is invalid (naming its key) or {@code n < 0}
   */
  public static List<Instant> nextFireTimes(JobSpec spec, Instant from, int n, ZoneId defaultZone) {
    return preview(spec, from, n, defaultZone, false);
  }

  /**
   * As {@link #nextFireTimes(JobSpec, Instant, int)}, but each fire's due time: its scheduled fire
   * time plus the spec's jitter offset ({@link JobSpec#jitter(Duration)}), the same offset every
   * instance computes. Without jitter these are the fire times. In fire order; each is at or after
   * its fire time and, for a fixed rate, before the next fire time.
   *
   * @param spec the job spec whose schedule to preview
   * @param from the instant the job is taken to be scheduled at
   * @param n how many due times to compute, 0 or more
   * @return up to {@code n} due times in fire order; fewer if the schedule ends
   * @throws IllegalArgumentException if the spec is invalid (naming its key) or {@code n < 0}
   */
  public static List<Instant> nextDueTimes(JobSpec spec, Instant from, int n) {
    return nextDueTimes(spec, from, n, ZoneId.systemDefault());
  }

  /**
   * As {@link #nextDueTimes(JobSpec, Instant, int)}, reading a cron schedule without a zone in
   * {@code defaultZone}.
   *
   * @param spec the job spec whose schedule to preview
   * @param from the instant the job is taken to be scheduled at
   * @param n how many due times to compute, 0 or more
   * @param defaultZone the zone of a cron schedule that names none
   * @return up to {@code n} due times in fire order; fewer if the schedule ends
   * @throws IllegalArgumentException if the spec is invalid (naming its key) or {@code n < 0}
   */
  public static List<Instant> nextDueTimes(JobSpec spec, Instant from, int n, ZoneId defaultZone) {
    return preview(spec, from, n, defaultZone, true);
  }

  /**
   * As {@link #nextFireTimes(JobSpec, Instant, int, ZoneId)}, with {@code calendar} applied as the
   * spec's calendar under the spec's {@link JobSpec#calendarPolicy()}: excluded fires are left out
   * ({@code SKIP}) or moved to the next allowed instant ({@code NEXT_ALLOWED}), as the scheduler
   * would fire them with that calendar stored under the spec's calendar name.
   *
   * <pre>{@code
   * CronPreview.nextFireTimes(
   *     JobSpec.named("report").cron("0 0 9 * * ?", zone),
   *     BusinessCalendar.in(zone).weekdays(), Instant.parse("2026-01-02T00:00:00Z"), 3, zone);
   * // Friday 2 January, Monday 5 January, Tuesday 6 January at 09:00
   * }</pre>
   *
   * @param spec the job spec whose schedule to preview
   * @param calendar the calendar to apply
   * @param from the instant the job is taken to be scheduled at
   * @param n how many fire times to compute, 0 or more
   * @param defaultZone the zone of a cron schedule that names none
   * @return up to {@code n} fire times in order; fewer if the schedule ends
   * @throws IllegalArgumentException if the spec or calendar is invalid or {@code n < 0}
   */
  public static List<Instant> nextFireTimes(
      JobSpec spec, BusinessCalendar calendar, Instant from, int n, ZoneId defaultZone) {
    if (calendar == null || spec == null) {
      throw new IllegalArgumentException("spec and calendar must not be null");
    }
    String name = spec.calendar().orElse("preview");
    JobRules.checkCalendar(name, calendar);
    return preview(
        spec.excluding(name, spec.calendarPolicy()), from, n, defaultZone, false, calendar);
  }

  /**
   * One fire of a preview with a calendar ({@link #nextFires}): when the job fires, when that fire
   * is due, and the slots of the job's timetable that the calendar excluded on the way to it. Under
   * {@link dev.kairos.CalendarPolicy#SKIP} the excluded slots were dropped; under {@link
   * dev.kairos.CalendarPolicy#NEXT_ALLOWED} they moved to this fire, which runs once for all of
   * them.
   *
   * @param fire when the job fires, the calendar applied
   * @param due when the fire is due: {@code fire} plus the spec's jitter offset ({@code fire}
   *     itself without jitter)
   * @param excluded the excluded slots since the previous fire (for the first fire: since the
   *     preview's start), oldest first; at most as many as the preview's {@code n}
   * @param excludedCount how many slots were excluded there, counting at most {@value
   *     #MAX_COUNTED}; more than {@code excluded.size()} when the list was cut short
   */
  public record Fire(Instant fire, Instant due, List<Instant> excluded, long excludedCount) {
    /**
     * Checks the fire and copies the list.
     *
     * @param fire when the job fires
     * @param due when the fire is due
     * @param excluded the excluded slots before it
     * @param excludedCount how many slots were excluded
     */
    public Fire {
      if (fire == null || due == null || excluded == null || excludedCount < excluded.size()) {
        throw new IllegalArgumentException(
            "a fire needs its time, due time and excluded slots (at least as many counted as"
                + " listed)");
      }
      excluded = List.copyOf(excluded);
    }
  }

  /** The most excluded slots {@link Fire#excludedCount()} counts between two fires. */
  public static final long MAX_COUNTED = Timetable.WALK_CAP;

  /**
   * The first {@code n} fires of the spec's schedule after {@code from} with {@code calendar}
   * applied as {@link #nextFireTimes(JobSpec, BusinessCalendar, Instant, int, ZoneId)} does, each
   * with its jittered due time (as {@link #nextDueTimes}) and the timetable slots the calendar
   * excluded before it. What a page or a tool shows to explain a calendar's effect on a job.
   *
   * <pre>{@code
   * CronPreview.nextFires(
   *     JobSpec.named("report").cron("0 0 9 * * ?", zone).excluding("desk"),
   *     BusinessCalendar.in(zone).weekdays(), Instant.parse("2026-01-02T00:00:00Z"), 2, zone);
   * // Fire[fire=Friday 2 January 09:00, excluded=[]],
   * // Fire[fire=Monday 5 January 09:00, excluded=[Saturday 09:00, Sunday 09:00]]
   * }</pre>
   *
   * @param spec the job spec whose schedule to preview
   * @param calendar the calendar to apply, or null for none (the spec's calendar name is then
   *     ignored)
   * @param from the instant the job is taken to be scheduled at
   * @param n how many fires to compute, 0 or more
   * @param defaultZone the zone of a cron schedule that names none
   * @return up to {@code n} fires in order; fewer if the schedule ends (slots excluded after the
   *     last fire are not reported)
   * @throws IllegalArgumentException if the spec or calendar is invalid or {@code n < 0}
   */
  public static List<Fire> nextFires(
      JobSpec spec, BusinessCalendar calendar, Instant from, int n, ZoneId defaultZone) {
    if (spec == null) {
      throw new IllegalArgumentException("spec must not be null");
    }
    JobSpec attached = spec.excluding(null);
    if (calendar != null) {
      String name = spec.calendar().orElse("preview");
      JobRules.checkCalendar(name, calendar);
      attached = spec.excluding(name, spec.calendarPolicy());
    }
    JobSpec valid = validate(attached, from, n, defaultZone);
    Timetable base = Timetables.of(valid);
    Timetable timetable =
        calendar == null ? base : Timetables.of(valid, c -> Optional.of(calendar));
    List<Fire> fires = new ArrayList<>(Math.min(n, 1024));
    Optional<Instant> slot = n == 0 ? Optional.empty() : base.first(from);
    Optional<Instant> fire = slot.flatMap(s -> timetable.first(from));
    while (fire.isPresent() && fires.size() < n) {
      Instant f = fire.get();
      Instant s = slot.orElse(f);
      long count = s.isBefore(f) ? base.countDue(s, f.minusNanos(1), MAX_COUNTED) : 0;
      List<Instant> excluded = new ArrayList<>((int) Math.min(count, n));
      for (Optional<Instant> e = Optional.of(s);
          e.isPresent() && e.get().isBefore(f) && excluded.size() < Math.min(count, n);
          e = base.successor(e.get())) {
        excluded.add(e.get());
      }
      fires.add(new Fire(f, Jitter.due(valid, f), excluded, Math.max(count, excluded.size())));
      if (fires.size() < n) {
        slot = base.successor(f);
        fire = timetable.successor(f);
      }
    }
    return List.copyOf(fires);
  }

  /**
   * When the fire scheduled at {@code fire} is due: {@code fire} plus the spec's jitter offset, the
   * offset every instance computes for that job and fire; {@code fire} itself for a spec without
   * jitter or with a one-shot schedule.
   *
   * @param spec the job's spec (its key, schedule kind and jitter count)
   * @param fire a scheduled fire time
   * @return the due time
   * @throws IllegalArgumentException if an argument is null
   */
  public static Instant dueTime(JobSpec spec, Instant fire) {
    if (spec == null || fire == null || spec.key() == null) {
      throw new IllegalArgumentException("spec (with its key) and fire must not be null");
    }
    return Jitter.due(spec, fire);
  }

  private static List<Instant> preview(
      JobSpec spec, Instant from, int n, ZoneId defaultZone, boolean jittered) {
    return preview(spec, from, n, defaultZone, jittered, null);
  }

  private static List<Instant> preview(
      JobSpec spec,
      Instant from,
      int n,
      ZoneId defaultZone,
      boolean jittered,
      BusinessCalendar calendar) {
    JobSpec valid = validate(spec, from, n, defaultZone);
    Timetable timetable =
        calendar == null ? Timetables.of(valid) : Timetables.of(valid, c -> Optional.of(calendar));
    List<Instant> fires = new ArrayList<>(Math.min(n, 1024));
    Optional<Instant> fire = n == 0 ? Optional.empty() : timetable.first(from);
    while (fire.isPresent() && fires.size() < n) {
      fires.add(jittered ? Jitter.due(valid, fire.get()) : fire.get());
      fire = fires.size() < n ? timetable.successor(fire.get()) : Optional.empty();
    }
    return List.copyOf(fires);
  }

  /** The spec as {@code schedule} validates it, with a stand-in handler if it names none. */
  private static JobSpec validate(JobSpec spec, Instant from, int n, ZoneId defaultZone) {
    if (n < 0) {
      throw new IllegalArgumentException("number of fire times must not be negative: " + n);
    }
    if (from == null || defaultZone == null) {
      throw new IllegalArgumentException("from and defaultZone must not be null");
    }
    JobSpec named = spec != null && spec.handler() == null ? spec.handler("preview") : spec;
    Set<String> handlers = named == null ? Set.of() : Set.of(named.handler());
    return new SpecValidator(handlers, defaultZone).validate(named);
  }

  /**
   * A description of a cron expression in words, in the locale's language where cron-utils has one
   * (English otherwise), for example "every 5 minutes".
   *
   * @param expression the cron expression
   * @param syntax the cron dialect the expression is written in
   * @param locale the language of the description
   * @return the description
   * @throws IllegalArgumentException if the expression is invalid, saying which field and why
   */
  public static String describe(String expression, CronSyntax syntax, Locale locale) {
    return CronCompiler.describe(
        expression,
        syntax == null ? CronSyntax.QUARTZ : syntax,
        locale == null ? Locale.ENGLISH : locale);
  }
}
