package dev.kairos.engine.internal;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.JobSpec;
import dev.kairos.Schedule;
import dev.kairos.spi.JobRules;
import java.time.ZoneId;
import java.util.Set;

/**
 * Checks a {@link JobSpec} before anything is stored: {@link JobRules} (shared with the stores
 * reading rows back), the registered handlers and the cron expression; and resolves what the
 * scheduler fills in (the cron zone). Every message names the job key and the offending value.
 */
public final class SpecValidator {
  private final Set<String> handlers;
  private final ZoneId defaultZone;

  /**
   * @param handlers names of the registered handlers
   * @param defaultZone zone of cron schedules that name none
   */
  public SpecValidator(Set<String> handlers, ZoneId defaultZone) {
    this.handlers = handlers;
    this.defaultZone = defaultZone;
  }

  /**
   * Returns the spec, with defaults resolved, or throws {@link IllegalArgumentException} naming the
   * key and the problem.
   */
  public JobSpec validate(JobSpec spec) {
    JobRules.checkSpec(spec);
    String key = spec.key();
    String handler = spec.handler();
    if (!handlers.contains(handler)) {
      throw bad(key, "handler '" + handler + "' is not registered (registered: " + handlers + ")");
    }
    return spec.schedule() instanceof Schedule.Cron c ? spec.schedule(checkCron(key, c)) : spec;
  }

  private Schedule.Cron checkCron(String key, Schedule.Cron c) {
    if (c.expression() == null || c.expression().isBlank()) {
      throw bad(key, "cron expression is null or blank");
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

  static IllegalArgumentException bad(String key, String problem) {
    return new IllegalArgumentException("job '" + key + "': " + problem);
  }
}
