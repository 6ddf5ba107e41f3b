package dev.kairos.engine.internal;

import dev.kairos.JobSpec;
import dev.kairos.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Builds the {@link Timetable} of a job's schedule. */
public final class Timetables {
  private Timetables() {}

  /**
   * The timetable of a validated spec. A cron schedule must have its zone resolved (see {@link
   * SpecValidator}).
   */
  public static Timetable of(JobSpec spec) {
    Schedule s = spec.schedule();
    if (s instanceof Schedule.FixedRate r) {
      return new FixedRate(r.period(), spec.startAt().orElse(null), spec.initialDelay());
    } else if (s instanceof Schedule.FixedDelay d) {
      return new FixedDelay(d.delay(), spec.startAt().orElse(null), spec.initialDelay());
    } else if (s instanceof Schedule.Once o) {
      return new Once(o);
    } else if (s instanceof Schedule.Cron c) {
      return CronTimetable.of(c, spec.startAt().orElse(null));
    }
    throw new IllegalArgumentException("unknown schedule " + s);
  }

  /**
   * The timetable of a validated spec with its calendar, if it names one, looked up in {@code
   * calendars}.
   *
   * @throws dev.kairos.UnreadableJobException naming the key and the calendar if there is none of
   *     that name
   */
  public static Timetable of(
      JobSpec spec,
      java.util.function.Function<String, Optional<dev.kairos.BusinessCalendar>> calendars) {
    Timetable base = of(spec);
    if (spec.calendar().isEmpty()) {
      return base;
    }
    String name = spec.calendar().get();
    dev.kairos.BusinessCalendar c =
        calendars
            .apply(name)
            .orElseThrow(
                () ->
                    new dev.kairos.UnreadableJobException(
                        "job '"
                            + dev.kairos.spi.JobRules.printable(spec.key())
                            + "': calendar '"
                            + dev.kairos.spi.JobRules.printable(name)
                            + "' does not exist or cannot be read"));
    return new CalendarTimetable(base, c, spec.calendarPolicy());
  }

  /** {@code a + d}, saturating at {@link Instant#MAX}. */
  static Instant plus(Instant a, Duration d) {
    try {
      return a.plus(d);
    } catch (ArithmeticException | java.time.DateTimeException e) {
      return Instant.MAX;
    }
  }

  /** Fixed rate: fires at first, first + p, first + 2p, ... */
  record FixedRate(Duration period, Instant startAt, Optional<Duration> initialDelay)
      implements Timetable {
    @Override
    public Optional<Instant> first(Instant now) {
      if (startAt != null) {
        if (!startAt.isBefore(now)) {
          return Optional.of(startAt);
        }
        // The anchor has passed: the first slot of its timetable at or after now.
        long slots =
            (Duration.between(startAt, now).toNanos() + period.toNanos() - 1) / period.toNanos();
        return Optional.of(plus(startAt, period.multipliedBy(slots)));
      }
      return Optional.of(plus(now, initialDelay.orElse(Duration.ZERO)));
    }

    @Override
    public Optional<Instant> successor(Instant fire) {
      return Optional.of(plus(fire, period));
    }

    @Override
    public long countDue(Instant from, Instant now, long cap) {
      if (from.isAfter(now)) {
        return 0;
      }
      long n = Duration.between(from, now).dividedBy(period) + 1;
      return Math.min(n, cap);
    }

    @Override
    public Optional<Instant> nth(Instant fire, long n) {
      return Optional.of(plus(fire, period.multipliedBy(n)));
    }
  }

  /** Fixed delay: each fire is the delay after the previous run's end. */
  record FixedDelay(Duration delay, Instant startAt, Optional<Duration> initialDelay)
      implements Timetable {
    @Override
    public Optional<Instant> first(Instant now) {
      if (startAt != null) {
        return Optional.of(startAt.isBefore(now) ? now : startAt);
      }
      return Optional.of(plus(now, initialDelay.orElse(Duration.ZERO)));
    }

    @Override
    public Optional<Instant> successor(Instant fire) {
      return Optional.of(plus(fire, delay));
    }

    @Override
    public Optional<Instant> afterRun(Instant fire, Instant runEnd) {
      return Optional.of(plus(runEnd, delay));
    }

    @Override
    public long countDue(Instant from, Instant now, long cap) {
      if (from.isAfter(now)) {
        return 0;
      }
      return Math.min(Duration.between(from, now).dividedBy(delay) + 1, cap);
    }

    @Override
    public Optional<Instant> nth(Instant fire, long n) {
      return Optional.of(plus(fire, delay.multipliedBy(n)));
    }
  }

  /** One fire. */
  record Once(Schedule.Once once) implements Timetable {
    @Override
    public Optional<Instant> first(Instant now) {
      return Optional.of(once.at() != null ? once.at() : plus(now, once.delay()));
    }

    @Override
    public Optional<Instant> successor(Instant fire) {
      return Optional.empty();
    }
  }
}
