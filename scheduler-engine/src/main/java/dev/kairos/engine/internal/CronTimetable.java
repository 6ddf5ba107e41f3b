package dev.kairos.engine.internal;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.kairos.CronSyntax;
import dev.kairos.Schedule;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.Optional;

/** A cron schedule's timetable over cron-utils. */
final class CronTimetable implements Timetable {
  private final ExecutionTime execution;
  private final Schedule.Cron cron;
  private final Instant startAt;

  private CronTimetable(ExecutionTime execution, Schedule.Cron cron, Instant startAt) {
    this.execution = execution;
    this.cron = cron;
    this.startAt = startAt;
  }

  static CronTimetable of(Schedule.Cron cron, Instant startAt) {
    CronType type =
        switch (cron.syntax() == null ? CronSyntax.QUARTZ : cron.syntax()) {
          case QUARTZ -> CronType.QUARTZ;
          case UNIX -> CronType.UNIX;
          case SPRING -> CronType.SPRING53;
        };
    CronParser parser = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(type));
    return new CronTimetable(ExecutionTime.forCron(parser.parse(cron.expression())), cron, startAt);
  }

  /** Throws {@link IllegalArgumentException} naming the key if the expression is invalid. */
  static void validate(String key, Schedule.Cron cron) {
    try {
      of(cron, null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "job '"
              + key
              + "': invalid cron expression '"
              + cron.expression()
              + "': "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public Optional<Instant> first(Instant now) {
    Instant from = startAt != null && startAt.isAfter(now) ? startAt.minusNanos(1) : now;
    return successor(from);
  }

  @Override
  public Optional<Instant> successor(Instant fire) {
    return execution
        .nextExecution(ZonedDateTime.ofInstant(fire, cron.zone()))
        .map(ZonedDateTime::toInstant);
  }
}
