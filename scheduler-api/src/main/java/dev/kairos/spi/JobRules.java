package dev.kairos.spi;

import dev.kairos.BusinessCalendar;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Misfire;
import dev.kairos.Retry;
import dev.kairos.RunRecord;
import dev.kairos.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The one set of rules a job must satisfy, applied both to what the API is given ({@code
 * schedule(spec)}) and to every record a store reads back. A record that breaks a rule is
 * <em>unreadable</em>: stores and the engine skip it (never fire it, never rewrite it) and list it.
 *
 * <p>Every method throws {@link IllegalArgumentException} with a message that names the job key and
 * the offending value. What needs the engine (registered handlers, parsing cron expressions) is
 * checked there, on top of these rules.
 *
 * <p>The rules:
 *
 * <ul>
 *   <li>Key: not blank, at most {@value #MAX_KEY_LENGTH} characters, no control character (NUL,
 *       line breaks, ...) and no unpaired surrogate: such keys do not survive every database (on
 *       PostgreSQL a NUL cannot be stored at all). Handler names likewise; data may not hold a NUL.
 *   <li>Schedule: a fixed rate or delay is at least {@link #MIN_PERIOD}; a one-shot has a time or a
 *       non-negative delay; a cron schedule has an expression (and, to be run, a time zone).
 *   <li>Misfire: a threshold that is not negative; {@code catchUp(n)} with n at least 1; a catch-up
 *       window, if any, positive.
 *   <li>Jitter: not negative; none on a one-shot; for a fixed rate, shorter than the period.
 *   <li>Calendar: a job's calendar name follows the key rules; a calendar ({@link #checkCalendar})
 *       has a zone, at least one business day, at most {@value #MAX_EXCLUDED_DATES} excluded dates,
 *       and a window with both bounds, the first before the second. Whether a job's calendar exists
 *       is the engine's check (it needs the store).
 *   <li>Retry: at least one attempt; an initial delay that is not negative.
 *   <li>Schedule state (records only): a {@code COMPLETE} or {@code PAUSED} job is due only for a
 *       {@code triggerNow()}; a due job says why it is due; a timetable fire has a next fire time;
 *       a retry has the fire time it retries and is at least the second attempt; attempts count
 *       from 1 (and, to be run, up to the retry policy's maximum: {@link #checkRunnable}).
 *   <li>Statistics (records only): run and failure counts are not negative, and failures are not
 *       more than runs.
 *   <li>Catch-up (records, at a given instant): under {@code catchUp()} without a limit or window,
 *       a next fire time more than {@link #MAX_CATCH_UP} before now is refused: replaying more than
 *       a year of missed fires back to back is never what a restored backup or a hand edit meant (a
 *       next fire time in year 1 would replay every slot since). Schedule the job again, or use
 *       {@code catchUp(n)}.
 *   <li>Runs (history read back): an outcome, attempts counted from 1, a count of missed fires the
 *       run stood for that is not negative, and an instance id, if any, by the rules of {@link
 *       #checkInstanceId}.
 *   <li>Errors: not a rule but a form. A run's failure is kept as {@link #errorText} writes it, so
 *       that whatever a handler throws is recorded on every database; stores apply {@link
 *       #storableError} to any error text they are handed.
 * </ul>
 */
public final class JobRules {
  /** Longest job key. */
  public static final int MAX_KEY_LENGTH = 200;

  /**
   * Under unlimited {@code catchUp()}, how far in the past a next fire time may lie before the
   * record is refused.
   */
  public static final Duration MAX_CATCH_UP = Duration.ofDays(366);

  /** Shortest fixed-rate period or fixed delay. */
  public static final Duration MIN_PERIOD = Duration.ofMillis(1);

  /** Most excluded dates a calendar may hold. */
  public static final int MAX_EXCLUDED_DATES = 10_000;

  /** Longest error text a run keeps ({@link #errorText}). */
  public static final int MAX_ERROR_LENGTH = 2000;

  private JobRules() {}

  /**
   * A run's failure as its history and its job's record keep it, whatever the throwable does: its
   * {@code toString()}, or, when that throws or returns null, its class name saying so; then made
   * storable as {@link #storableError} does. Never throws.
   *
   * @param failure what the run threw, or null
   * @return the error text, or null for a null failure
   */
  public static String errorText(Throwable failure) {
    if (failure == null) {
      return null;
    }
    String text;
    try {
      text = failure.toString();
      if (text == null) {
        text = failure.getClass().getName() + " (its toString() returned null)";
      }
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      text =
          failure.getClass().getName() + " (its toString() threw " + e.getClass().getName() + ")";
    }
    return storableError(text);
  }

  /**
   * An error text every store keeps as it is: each NUL (which PostgreSQL cannot store) and each
   * unpaired surrogate (which no UTF-8 column can hold) written as a backslash-u code, other
   * characters (line breaks too) kept; trimmed to {@value #MAX_ERROR_LENGTH} characters with "..."
   * at the end, never between the two halves of a surrogate pair.
   *
   * @param error the text, or null
   * @return the storable text, or null
   */
  public static String storableError(String error) {
    if (error == null) {
      return null;
    }
    String s = escaped(error, (t, i, n) -> n == 1 && unholdableByAny(t.charAt(i)));
    if (s.length() <= MAX_ERROR_LENGTH) {
      return s;
    }
    int end = MAX_ERROR_LENGTH - 3;
    if (Character.isHighSurrogate(s.charAt(end - 1))) {
      end--; // a pair straddles the cut: keep neither half
    }
    return s.substring(0, end) + "...";
  }

  /**
   * {@link #storableError(String)} for a store whose text columns hold only the characters of
   * {@code charset} (a PostgreSQL database in LATIN1, say, refuses an error text in Japanese): each
   * character the charset cannot encode is also written as a backslash-u code (both halves of a
   * surrogate pair), before the text is trimmed.
   *
   * @param error the text, or null
   * @param charset the characters the store holds, or null for all of Unicode
   * @return the storable text, or null
   */
  public static String storableError(String error, java.nio.charset.Charset charset) {
    if (error == null || charset == null) {
      return storableError(error);
    }
    java.nio.charset.CharsetEncoder encoder = charset.newEncoder();
    return storableError(
        escaped(
            error,
            (t, i, n) ->
                n == 1
                    ? unholdableByAny(t.charAt(i)) || !encoder.canEncode(t.charAt(i))
                    : !encoder.canEncode(t.subSequence(i, i + n))));
  }

  /**
   * Why no database store keeps {@code data} as it is, or null: a NUL, which PostgreSQL refuses, or
   * an unpaired surrogate, which H2, PostgreSQL and MariaDB all write as a replacement character
   * (the handler would get other data than was scheduled). Refused on every store, so a job can
   * move between stores.
   */
  private static String unstorableData(String data) {
    for (int i = 0; i < data.length(); i++) {
      char c = data.charAt(i);
      if (c >= 0x20 && c < 0xd800) {
        continue; // the common case
      }
      if (c == 0) {
        return "a NUL character (\\u0000) at index " + i + ", which PostgreSQL cannot store";
      }
      if (isPairAt(data, i)) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return String.format(
            "an unpaired surrogate (\\u%04x) at index %d, which no database store keeps (it would"
                + " read back as another character)",
            (int) c, i);
      }
    }
    return null;
  }

  /** A NUL (PostgreSQL cannot store one) or half a surrogate pair (no UTF-8 column holds one). */
  private static boolean unholdableByAny(char c) {
    return c == 0 || Character.isSurrogate(c);
  }

  private static boolean isPairAt(String s, int i) {
    return Character.isHighSurrogate(s.charAt(i))
        && i + 1 < s.length()
        && Character.isLowSurrogate(s.charAt(i + 1));
  }

  /**
   * Checks a calendar name as every calendar call may: the rules of a key.
   *
   * @param name the calendar's name
   * @throws IllegalArgumentException naming the calendar
   */
  public static void checkCalendarName(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("calendar name is null or blank: '" + name + "'");
    }
    if (name.length() > MAX_KEY_LENGTH) {
      throw badCalendar(name, "name longer than " + MAX_KEY_LENGTH + " characters");
    }
    String problem = badCharacter(name);
    if (problem != null) {
      throw badCalendar(name, "name contains " + problem);
    }
  }

  /**
   * Checks a scheduler instance's id by the rules of a key: it is written with every run and, in
   * cluster mode, with every claim, so one a database cannot store would fail every write-back.
   *
   * @param id the instance id
   * @throws IllegalArgumentException naming the id and the problem
   */
  public static void checkInstanceId(String id) {
    if (id == null || id.isBlank() || id.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "instance id must be 1 to "
              + MAX_KEY_LENGTH
              + " characters, not blank: '"
              + printable(id)
              + "'");
    }
    String problem = badCharacter(id);
    if (problem != null) {
      throw new IllegalArgumentException("instance id '" + printable(id) + "' contains " + problem);
    }
  }

  /**
   * Checks a calendar and its name, as {@code putCalendar} does and a store does with one it reads
   * back.
   *
   * @param name the calendar's name
   * @param c the calendar
   * @throws IllegalArgumentException naming the calendar and the problem
   */
  public static void checkCalendar(String name, BusinessCalendar c) {
    checkCalendarName(name);
    if (c == null) {
      throw badCalendar(name, "calendar is null");
    }
    if (c.days().isEmpty()) {
      throw badCalendar(name, "no business day: it would exclude every fire");
    }
    if (c.excludedDates().size() > MAX_EXCLUDED_DATES) {
      throw badCalendar(
          name,
          c.excludedDates().size()
              + " excluded dates, more than "
              + MAX_EXCLUDED_DATES
              + " allowed");
    }
    if (c.from().isPresent() != c.until().isPresent()) {
      throw badCalendar(
          name, "time-of-day window needs both bounds: " + c.from() + ", " + c.until());
    }
    if (c.from().isPresent() && !c.from().get().isBefore(c.until().get())) {
      throw badCalendar(
          name,
          "time-of-day window from "
              + c.from().get()
              + " must start before its end "
              + c.until().get());
    }
  }

  /**
   * The refusal of deleting a calendar that jobs refer to, naming them, the same on every store.
   *
   * @param name the calendar's name
   * @param keys the keys of the jobs attached to it, at least one
   * @return the exception to throw
   */
  public static IllegalStateException calendarInUse(String name, List<String> keys) {
    List<String> shown = keys.size() > 20 ? keys.subList(0, 20) : keys;
    return new IllegalStateException(
        "calendar '"
            + printable(name)
            + "' is used by "
            + keys.size()
            + " job(s) "
            + shown.stream().map(k -> "'" + printable(k) + "'").toList()
            + (keys.size() > shown.size() ? " and more" : "")
            + ": attach them to another calendar or unschedule them first");
  }

  /**
   * The refusal of an upsert whose job is attached to a calendar the store does not hold (another
   * instance deleted it since the engine looked), the same on every store.
   *
   * @param key the job's key
   * @param name the calendar's name
   * @return the exception to throw; nothing is written then
   */
  public static IllegalStateException calendarGone(String key, String name) {
    return new IllegalStateException(
        "job '"
            + printable(key)
            + "': calendar '"
            + printable(name)
            + "' is not stored (deleted meanwhile by another instance?); nothing was written:"
            + " store it with putCalendar first");
  }

  private static IllegalArgumentException badCalendar(String name, String problem) {
    return new IllegalArgumentException("calendar '" + printable(name) + "': " + problem);
  }

  /**
   * Checks a key as every API call that takes one may: not blank, at most {@value #MAX_KEY_LENGTH}
   * characters, no control character or unpaired surrogate.
   *
   * @param key the key to check
   * @throws IllegalArgumentException naming the key (control characters escaped as backslash-u
   *     codes)
   */
  public static void checkKey(String key) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException(
          "job key is null or blank: "
              + (key == null ? "none given (JobSpec.named(key))" : "'" + printable(key) + "'"));
    }
    if (key.length() > MAX_KEY_LENGTH) {
      throw bad(key, "key longer than " + MAX_KEY_LENGTH + " characters");
    }
    String problem = badCharacter(key);
    if (problem != null) {
      throw bad(key, "key contains " + problem);
    }
  }

  /**
   * Checks a definition: key, handler name, data, schedule, misfire policy and retry policy (not
   * whether the handler is registered, nor the cron expression's syntax).
   *
   * @param spec the definition to check
   * @throws IllegalArgumentException naming the key and the problem
   */
  public static void checkSpec(JobSpec spec) {
    if (spec == null) {
      throw new IllegalArgumentException("job spec is null");
    }
    String key = spec.key();
    checkKey(key);
    String handler = spec.handler();
    if (handler == null || handler.isBlank()) {
      throw bad(
          key,
          "handler name is null or blank: "
              + (handler == null
                  ? "none given (call handler(name))"
                  : "'" + printable(handler) + "'"));
    }
    String handlerProblem = badCharacter(handler);
    if (handlerProblem != null) {
      throw bad(key, "handler name '" + printable(handler) + "' contains " + handlerProblem);
    }
    String dataProblem = spec.data().map(JobRules::unstorableData).orElse(null);
    if (dataProblem != null) {
      throw bad(key, "data contains " + dataProblem);
    }
    if (spec.schedule() == null) {
      throw bad(key, "no schedule: call fixedRate, fixedDelay, at, after or cron");
    }
    checkSchedule(key, spec.schedule());
    checkMisfire(key, spec.misfire());
    if (spec.overlap() == null) {
      throw bad(key, "overlap policy is null (Overlap.forbid() is the default)");
    }
    checkRetry(key, spec.retry());
    if (spec.overlap() instanceof dev.kairos.Overlap.Allow a
        && a.runs() > 1
        && spec.retry().maxAttempts() > 1) {
      throw bad(
          key,
          "overlap "
              + a
              + " cannot be combined with a retry policy ("
              + spec.retry().maxAttempts()
              + " attempts): concurrent runs are not retried; use Retry.none() or another"
              + " overlap policy");
    }
    spec.jitter().ifPresent(j -> checkJitter(key, spec.schedule(), j));
    spec.initialDelay().ifPresent(d -> nonNegative(key, "initial delay", d));
    spec.calendar().ifPresent(c -> checkJobCalendar(key, c));
  }

  private static void checkJobCalendar(String key, String calendar) {
    try {
      checkCalendarName(calendar);
    } catch (IllegalArgumentException e) {
      throw bad(key, e.getMessage());
    }
  }

  /**
   * Checks a stored record: its definition ({@link #checkSpec}) and its schedule state.
   *
   * @param r the record to check
   * @throws IllegalArgumentException naming the key and the problem
   */
  public static void checkRecord(JobRecord r) {
    if (r == null || r.spec() == null) {
      throw new IllegalArgumentException("job record or its definition is null");
    }
    checkSpec(r.spec());
    String key = r.key();
    if (r.state() == null) {
      throw bad(key, "state is null");
    }
    if (r.attempt() < 1) {
      throw bad(key, "attempt must be at least 1: " + r.attempt());
    }
    checkStats(key, r.stats());
    if (r.dueTime() != null) {
      checkDue(r);
    }
  }

  /**
   * Checks what running a record needs beyond {@link #checkRecord(JobRecord)}: a cron schedule has
   * a time zone (the engine fills in its default before it stores one), and the attempt is within
   * the retry policy. A store keeps a record without these (an SPI caller's record reads back as
   * written); the engine refuses it as unreadable ({@link #checkRecord(JobRecord, Instant)}).
   *
   * @param r the record to check
   * @throws IllegalArgumentException naming the key and the problem
   */
  public static void checkRunnable(JobRecord r) {
    String key = r.key();
    if (r.spec().schedule() instanceof Schedule.Cron c && c.zone() == null) {
      throw bad(key, "cron schedule '" + printable(c.expression()) + "' has no time zone");
    }
    int maxAttempts = r.spec().retry().maxAttempts();
    if (r.attempt() > maxAttempts) {
      throw bad(
          key,
          "attempt "
              + r.attempt()
              + " is beyond the retry policy's "
              + maxAttempts
              + " attempt(s)");
    }
  }

  /** The rules of a record that is due: why, and what its state and kind allow. */
  private static void checkDue(JobRecord r) {
    String key = r.key();
    if (r.dueKind() == null) {
      throw bad(key, "due at " + r.dueTime() + " without a due kind");
    }
    if ((r.state() == JobState.COMPLETE || r.state() == JobState.PAUSED)
        && r.dueKind() != FireKind.TRIGGER) {
      throw bad(
          key,
          "a "
              + r.state()
              + " job has a due time: "
              + r.dueTime()
              + " ("
              + r.dueKind()
              + "); only a triggerNow() makes it due");
    }
    if (r.dueKind() == FireKind.TIMETABLE && r.nextFireTime() == null) {
      throw bad(key, "a timetable fire is due at " + r.dueTime() + " without a next fire time");
    }
    if (r.dueKind() == FireKind.RETRY && r.lastScheduledFireTime() == null) {
      throw bad(key, "a retry is due at " + r.dueTime() + " without the fire time it retries");
    }
    if (r.dueKind() == FireKind.RETRY && r.attempt() < 2) {
      throw bad(
          key,
          "a retry is due at " + r.dueTime() + " as attempt " + r.attempt() + ", not 2 or more");
    }
  }

  /** Refuses counts no run can leave: negative, or more failures than runs. */
  private static void checkStats(String key, RunStats s) {
    if (s == null) {
      throw bad(key, "run statistics are null");
    }
    if (s.runCount() < 0) {
      throw bad(key, "run count must not be negative: " + s.runCount());
    }
    if (s.failureCount() < 0) {
      throw bad(key, "failure count must not be negative: " + s.failureCount());
    }
    if (s.failureCount() > s.runCount()) {
      throw bad(
          key, "failure count " + s.failureCount() + " is more than the run count " + s.runCount());
    }
  }

  /**
   * Checks a stored record as {@link #checkRecord(JobRecord)} and {@link #checkRunnable} do, and
   * against the catch-up rule at {@code now} (see the class comment): what the engine asks of a
   * record before it fires it.
   *
   * @param r the record to check
   * @param now the current time, by the store's clock
   * @throws IllegalArgumentException naming the key and the problem
   */
  public static void checkRecord(JobRecord r, Instant now) {
    checkRecord(r);
    checkRunnable(r);
    if (r.spec().misfire() instanceof Misfire.CatchUp c
        && c.max() == Integer.MAX_VALUE
        && c.window() == null
        && r.dueTime() != null
        && r.dueKind() == FireKind.TIMETABLE
        && Duration.between(r.nextFireTime(), now).compareTo(MAX_CATCH_UP) > 0) {
      throw bad(
          r.key(),
          "next fire time "
              + r.nextFireTime()
              + " is more than "
              + MAX_CATCH_UP.toDays()
              + " days before now ("
              + now
              + ") under catchUp(): refusing to replay every missed fire since;"
              + " schedule the job again or use catchUp(n)");
    }
  }

  /**
   * Checks a run read back from a store's history: it has an outcome, its attempt counts from 1,
   * the missed fires it stood for are not negative, a backfill run is no recovery and stands for no
   * missed fire, and its instance id, if any, is one {@link #checkInstanceId} accepts (a line break
   * in it could forge a log or CLI line).
   *
   * @param r the run to check
   * @throws IllegalArgumentException naming the key and the problem
   */
  public static void checkRun(RunRecord r) {
    if (r.outcome() == null) {
      throw bad(r.key(), "run of fire " + r.scheduledFireTime() + " has no outcome");
    }
    if (r.attempt() < 1) {
      throw bad(
          r.key(),
          "run of fire " + r.scheduledFireTime() + ": attempt must be at least 1: " + r.attempt());
    }
    checkMissedFires(r.key(), r.missedFires());
    if (r.backfill() && (r.recovery() || r.missedFires() != 0)) {
      throw bad(
          r.key(),
          "backfill run of fire "
              + r.scheduledFireTime()
              + ": a backfill run is no recovery and stands for no missed fire");
    }
    if (r.instance() != null) {
      try {
        checkInstanceId(r.instance());
      } catch (IllegalArgumentException e) {
        throw bad(r.key(), "run of fire " + r.scheduledFireTime() + ": " + e.getMessage());
      }
    }
  }

  /** Refuses a negative count of missed fires, naming the job. */
  static void checkMissedFires(String key, int missedFires) {
    if (missedFires < 0) {
      throw bad(key, "missed fires must not be negative: " + missedFires);
    }
  }

  /**
   * The reason a record breaks a rule at {@code now}, or null if it breaks none.
   *
   * @param r the record to check
   * @param now the current time, by the store's clock
   * @return the problem naming the key, or null
   */
  public static String problem(JobRecord r, Instant now) {
    try {
      checkRecord(r, now);
      return null;
    } catch (IllegalArgumentException | ArithmeticException e) {
      return e.getMessage();
    }
  }

  private static void checkSchedule(String key, Schedule schedule) {
    if (schedule instanceof Schedule.FixedRate r) {
      atLeastMinPeriod(key, "fixed-rate period", r.period());
    } else if (schedule instanceof Schedule.FixedDelay d) {
      atLeastMinPeriod(key, "fixed delay", d.delay());
    } else if (schedule instanceof Schedule.Once o) {
      if (o.at() == null && o.delay() == null) {
        throw bad(key, "one-shot time is null");
      }
      if (o.delay() != null) {
        nonNegative(key, "one-shot delay", o.delay());
      }
    } else if (schedule instanceof Schedule.Cron c) {
      if (c.expression() == null || c.expression().isBlank()) {
        throw bad(key, "cron expression is null or blank");
      }
    }
  }

  private static void checkMisfire(String key, Misfire m) {
    if (m == null) {
      throw bad(key, "misfire policy is null");
    }
    if (m.threshold() == null || m.threshold().isNegative()) {
      throw bad(key, "misfire threshold must not be negative: " + m.threshold());
    }
    if (m instanceof Misfire.CatchUp c && c.max() < 1) {
      throw bad(key, "catchUp(max) needs max >= 1: " + c.max());
    }
    if (m instanceof Misfire.CatchUp c && c.window() != null) {
      positive(key, "catch-up window", c.window());
    }
  }

  private static void checkJitter(String key, Schedule schedule, Duration jitter) {
    nonNegative(key, "jitter", jitter);
    if (schedule instanceof Schedule.Once) {
      throw bad(
          key,
          "jitter "
              + jitter
              + " on a one-shot: it fires at its own time; jitter spreads the"
              + " fires of recurring schedules");
    }
    if (schedule instanceof Schedule.FixedRate r && jitter.compareTo(r.period()) >= 0) {
      throw bad(
          key, "jitter " + jitter + " must be shorter than the fixed-rate period " + r.period());
    }
  }

  private static void checkRetry(String key, Retry r) {
    if (r == null) {
      throw bad(key, "retry policy is null");
    }
    if (r.maxAttempts() < 1) {
      throw bad(key, "retry max attempts must be at least 1: " + r.maxAttempts());
    }
    if (r.initialDelay() == null || r.initialDelay().isNegative()) {
      throw bad(key, "retry initial delay must not be negative: " + r.initialDelay());
    }
  }

  private static void positive(String key, String what, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw bad(key, what + " must be positive: " + d);
    }
  }

  private static void atLeastMinPeriod(String key, String what, Duration d) {
    positive(key, what, d);
    if (d.compareTo(MIN_PERIOD) < 0) {
      throw bad(key, what + " must be at least 1 ms: " + d);
    }
  }

  private static void nonNegative(String key, String what, Duration d) {
    if (d == null || d.isNegative()) {
      throw bad(key, what + " must not be negative: " + d);
    }
  }

  /** The first control character or unpaired surrogate in s, described; null if none. */
  private static String badCharacter(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c < 0x7f) {
        continue; // printable ASCII: the common case, nothing to check
      }
      if (Character.isISOControl(c)) {
        return String.format("a control character (\\u%04x) at index %d", (int) c, i);
      }
      if (isPairAt(s, i)) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return String.format("an unpaired surrogate (\\u%04x) at index %d", (int) c, i);
      }
    }
    return null;
  }

  /**
   * A refusal's message without the {@code job 'key': } these rules put first, as {@link
   * dev.kairos.UnreadableJob#reason()} gives it beside the key; another message as it is.
   *
   * @param message a refusal's message, or null
   * @param key the job's key
   * @return the message without the key's prefix
   */
  public static String withoutKey(String message, String key) {
    String prefix = "job '" + printable(key) + "': ";
    return message != null && message.startsWith(prefix)
        ? message.substring(prefix.length())
        : message;
  }

  /**
   * The text with control characters and unpaired surrogates escaped as backslash-u codes, as the
   * messages show keys; null stays null.
   *
   * @param s the text, or null
   * @return the printable text
   */
  public static String printable(String s) {
    if (s == null || badCharacter(s) == null) {
      return s;
    }
    return escaped(
        s,
        (t, i, n) ->
            n == 1 && (Character.isISOControl(t.charAt(i)) || Character.isSurrogate(t.charAt(i))));
  }

  /**
   * Which characters {@link #escaped} writes as backslash-u codes: asked once per character, the
   * {@code length} chars of {@code s} from {@code at} (2 for a surrogate pair, else 1, half a pair
   * included).
   */
  @FunctionalInterface
  private interface Escape {
    boolean test(String s, int at, int length);
  }

  /**
   * The text with each character {@code escape} accepts written as backslash-u codes (both halves
   * of a surrogate pair it accepts).
   */
  private static String escaped(String s, Escape escape) {
    StringBuilder b = null;
    for (int i = 0; i < s.length(); ) {
      int n = isPairAt(s, i) ? 2 : 1;
      if (escape.test(s, i, n)) {
        if (b == null) {
          b = new StringBuilder(s.length() + 8).append(s, 0, i);
        }
        for (int k = i; k < i + n; k++) {
          b.append(String.format("\\u%04x", (int) s.charAt(k)));
        }
      } else if (b != null) {
        b.append(s, i, i + n);
      }
      i += n;
    }
    return b == null ? s : b.toString();
  }

  private static IllegalArgumentException bad(String key, String problem) {
    return new IllegalArgumentException("job '" + printable(key) + "': " + problem);
  }
}
