package dev.kairos;

/** The dialect a cron expression is written in. Stored with the job. */
public enum CronSyntax {
  /**
   * Quartz: six or seven fields starting with seconds; supports {@code ?}, {@code L}, {@code W},
   * {@code #}. The default.
   */
  QUARTZ,
  /** Classic Unix crontab: five fields starting with minutes. */
  UNIX,
  /** Spring's {@code @Scheduled(cron=...)}: six fields starting with seconds. */
  SPRING
}
