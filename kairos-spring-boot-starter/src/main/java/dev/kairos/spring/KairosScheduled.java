package dev.kairos.spring;

import dev.kairos.CalendarPolicy;
import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a persistent recurring job on a bean method, in the spirit of Spring's
 * {@code @Scheduled}: replacing {@code @Scheduled(cron = "0 0 2 * * *")} by
 * {@code @KairosScheduled(cron = "0 0 2 * * *")} makes it persistent, restart-safe and, in cluster
 * mode, run once per cluster.
 *
 * <p>The method takes no parameter or one {@link dev.kairos.JobContext}; it may throw. At start the
 * job is upserted (its stored state is kept if the declaration is unchanged). Exactly one of {@link
 * #cron}, {@link #fixedRate} and {@link #fixedDelay} must be set. String attributes accept {@code
 * ${...}} placeholders; durations are {@code 10s}, {@code 5m}, {@code PT1H} or milliseconds. An
 * attribute that does not apply to the chosen kind (a {@link #zone} with {@link #fixedRate}, an
 * {@link #initialDelay} with {@link #cron}) fails the start, as any bad value does.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface KairosScheduled {
  /**
   * The job key (default: {@code beanName.methodName}); also the handler name.
   *
   * @return the job key, or empty for the default
   */
  String key() default "";

  /**
   * A cron expression, read in {@link #syntax()}.
   *
   * @return the cron expression, or empty if the job is not cron
   */
  String cron() default "";

  /**
   * Cron only: the zone, e.g. {@code Europe/Berlin} (default: {@code kairos.default-zone}).
   *
   * @return the zone ID, or empty for the default
   */
  String zone() default "";

  /**
   * Cron only: the syntax; Spring's by default, so {@code @Scheduled} expressions carry over.
   *
   * @return the cron syntax
   */
  CronSyntax syntax() default CronSyntax.SPRING;

  /**
   * Fire every period, counted from the previous scheduled fire time.
   *
   * @return the period as a duration (for example {@code 5m} or {@code PT5M}), or empty
   */
  String fixedRate() default "";

  /**
   * Fire this long after the previous run ended.
   *
   * @return the delay as a duration, or empty
   */
  String fixedDelay() default "";

  /**
   * Fixed rate and fixed delay only: delay of the first fire.
   *
   * @return the initial delay as a duration, or empty for none
   */
  String initialDelay() default "";

  /**
   * What to do with fires missed while the application was down or busy.
   *
   * @return the misfire policy
   */
  MisfirePolicy misfire() default MisfirePolicy.DEFAULT;

  /**
   * For {@link MisfirePolicy#CATCH_UP}: run at most this many missed fires (0: all).
   *
   * @return the most missed fires made up, 0 for all
   */
  int catchUpMax() default 0;

  /**
   * For {@link MisfirePolicy#CATCH_UP}: make up only missed fires scheduled at most this long
   * before now, dropping older ones ({@code Misfire.catchUp().within(...)}; default: no window).
   *
   * @return the catch-up window as a duration, or empty for no window
   */
  String catchUpWindow() default "";

  /**
   * How late a fire may start and still count as on time (default: the policy's).
   *
   * @return the threshold as a duration, or empty for the policy's
   */
  String misfireThreshold() default "";

  /**
   * Spread each fire by a deterministic offset in {@code [0, jitter)} ({@code JobSpec.jitter};
   * default: none).
   *
   * @return the jitter as a duration, or empty for none
   */
  String jitter() default "";

  /**
   * What happens to fires that come due while a run is still going ({@code JobSpec.overlap};
   * default: they wait).
   *
   * @return the overlap policy
   */
  OverlapPolicy overlap() default OverlapPolicy.FORBID;

  /**
   * With {@code overlap = ALLOW}: the most runs of the job at once ({@code Overlap.allow(n)}, 1 to
   * 1000); must be left 0 (unset) with any other overlap policy.
   *
   * @return the bound, or 0 when unset
   */
  int concurrentRuns() default 0;

  /**
   * The stored calendar the job is attached to ({@code JobSpec.excluding}; default: none). The
   * calendar must be stored ({@code Scheduler.putCalendar}) before the job is scheduled.
   *
   * @return the calendar's name, or empty for none
   */
  String calendar() default "";

  /**
   * What a fire the calendar excludes does; a value other than SKIP fails the start when {@link
   * #calendar()} is not written (a placeholder resolving to nothing leaves it unused).
   *
   * @return the calendar policy
   */
  CalendarPolicy calendarPolicy() default CalendarPolicy.SKIP;

  /**
   * Cron only: local times skipped by a daylight-saving gap.
   *
   * @return the gap rule
   */
  DstPolicy.Gap dstGap() default DstPolicy.Gap.SHIFT;

  /**
   * Cron only: local times repeated by a daylight-saving overlap.
   *
   * @return the overlap rule
   */
  DstPolicy.Overlap dstOverlap() default DstPolicy.Overlap.FIRST;

  /**
   * Attempts per fire including the first; more than 1 retries with doubling backoff.
   *
   * @return the attempts per fire, at least 1
   */
  int retryAttempts() default 1;

  /**
   * Delay before the first retry; another delay than the default 1 s, written out, needs {@link
   * #retryAttempts()} above 1 (a placeholder is not judged).
   *
   * @return the first retry delay as a duration
   */
  String retryDelay() default "1s";

  /**
   * Data handed to the run as {@code JobContext.data()}.
   *
   * @return the job data, or empty for none
   */
  String data() default "";

  /** Misfire policies, as {@link dev.kairos.Misfire}'s factories. */
  enum MisfirePolicy {
    /** The job's default ({@code Misfire} default of {@code JobSpec}). */
    DEFAULT,
    /** Run every missed fire, or the newest {@link #catchUpMax()}. */
    CATCH_UP,
    /** Run once for all missed fires. */
    FIRE_ONCE,
    /** Skip missed fires; wait for the next one. */
    SKIP
  }

  /** Overlap policies, as {@link dev.kairos.Overlap}'s factories. */
  enum OverlapPolicy {
    /** Fires that came due during a run wait for it (the default). */
    FORBID,
    /** Only the newest fire that came due during a run waits; older ones are dropped. */
    BUFFER_ONE,
    /** Fires that came due during a run are dropped. */
    SKIP,
    /** The first fire that comes due during a run interrupts it; the newest runs next. */
    REPLACE,
    /** Up to {@link KairosScheduled#concurrentRuns()} runs of the job at once. */
    ALLOW
  }
}
