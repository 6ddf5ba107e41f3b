package dev.kairos.spring;

import dev.kairos.JobInfo;
import dev.kairos.Scheduler;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The Actuator endpoint {@code kairos}: {@code GET /actuator/kairos} lists the stored jobs; {@code
 * POST /actuator/kairos/{key}} with {@code {"action": "pause" | "resume" | "trigger"}} acts on one.
 * A write naming another field is refused with HTTP 400 ({@link KairosEndpointRequestCheck}).
 */
@Endpoint(id = "kairos")
public class KairosEndpoint {
  private final Scheduler scheduler;

  /**
   * The endpoint over {@code scheduler}.
   *
   * @param scheduler the scheduler the endpoint reads and acts on
   */
  public KairosEndpoint(Scheduler scheduler) {
    this.scheduler = scheduler;
  }

  /** One job as the endpoint shows it. */
  public record JobView(
      String key,
      String handler,
      String schedule,
      String state,
      Instant nextFireTime,
      String lastOutcome,
      boolean paused) {
    static JobView of(JobInfo j) {
      return new JobView(
          j.key(),
          j.spec().handler(),
          String.valueOf(j.spec().schedule()),
          j.state().name(),
          j.nextFireTime(),
          j.lastOutcome() == null ? null : j.lastOutcome().name(),
          j.state() == dev.kairos.JobState.PAUSED);
    }
  }

  /**
   * All stored jobs, ordered by key.
   *
   * @return every stored job
   */
  @ReadOperation
  public List<JobView> jobs() {
    return scheduler.jobs().stream().map(JobView::of).toList();
  }

  /**
   * One job, or null (404) if unknown.
   *
   * @param key the job key, from the path
   * @return the job, or null if unknown
   */
  @ReadOperation
  public JobView job(@Selector String key) {
    return scheduler.job(key).map(JobView::of).orElse(null);
  }

  /**
   * Pauses, resumes or triggers a job.
   *
   * @param key the job key, from the path
   * @param action {@code pause}, {@code resume} or {@code trigger}
   * @return {@code done: false} if the job is unknown
   * @throws InvalidEndpointRequestException (HTTP 400) for another action
   */
  @WriteOperation
  public Map<String, Object> act(@Selector String key, String action) {
    boolean done =
        switch (action) {
          case "pause" -> scheduler.pause(key);
          case "resume" -> scheduler.resume(key);
          case "trigger" -> scheduler.triggerNow(key);
          default ->
              throw new InvalidEndpointRequestException(
                  "action '" + action + "': expected pause, resume or trigger", "unknown action");
        };
    return Map.of("key", key, "action", action, "done", done);
  }
}
