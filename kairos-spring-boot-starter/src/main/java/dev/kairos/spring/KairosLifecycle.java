package dev.kairos.spring;

import dev.kairos.JobInfo;
import dev.kairos.Scheduler;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the scheduler once the context is refreshed and closes it early in shutdown, before the
 * beans it uses (the DataSource) are destroyed. At start it upserts the declared jobs, keeping the
 * stored state of unchanged ones, and applies {@code kairos.removed-jobs} to stored jobs whose
 * handler is gone. {@link #stop()} waits for running jobs up to the scheduler's grace period
 * ({@code kairos.grace-period} for the starter's scheduler).
 *
 * <p>A {@code Scheduler} bean of the application's is started (a no-op if the application started
 * it already: {@code start()} is idempotent) and closed the same way, but {@code
 * kairos.removed-jobs} is not applied to it: the starter does not know which handlers its builder
 * registered (see {@code KairosAutoConfiguration.kairosLifecycle}).
 */
public final class KairosLifecycle implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(KairosLifecycle.class);

  /**
   * Started late and stopped early: after the web server's graceful shutdown phase has begun, and
   * before anything in the default phase (such as connection pools) stops.
   */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

  private final Scheduler scheduler;
  private final DeclaredJobs declared;
  private final KairosProperties.RemovedJobs removedJobs;

  /** The application's scheduler bean name(s), quoted; null for the starter's own scheduler. */
  private final String applicationScheduler;

  private volatile boolean running;

  /** For the starter's own scheduler, whose handlers are the declared ones. */
  KairosLifecycle(
      Scheduler scheduler, DeclaredJobs declared, KairosProperties.RemovedJobs removedJobs) {
    this(scheduler, declared, removedJobs, null);
  }

  /**
   * For the starter's own scheduler ({@code applicationScheduler} null), or for the application's
   * Scheduler bean named {@code applicationScheduler}, to which {@code removedJobs} is not applied.
   */
  KairosLifecycle(
      Scheduler scheduler,
      DeclaredJobs declared,
      KairosProperties.RemovedJobs removedJobs,
      String applicationScheduler) {
    this.scheduler = scheduler;
    this.declared = declared;
    this.removedJobs = removedJobs;
    this.applicationScheduler = applicationScheduler;
  }

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    for (DeclaredJobs.Declared d : declared.jobs()) {
      try {
        scheduler.schedule(d.spec());
      } catch (IllegalArgumentException ex) {
        throw new IllegalStateException(d.origin() + ": " + ex.getMessage(), ex);
      }
    }
    if (applicationScheduler != null) {
      scheduler.start();
      running = true;
      log.info("Kairos started the application's Scheduler bean {}", applicationScheduler);
      return;
    }
    handleRemoved();
    scheduler.start();
    running = true;
    log.info(
        "Kairos started: {} handler(s), {} declared job(s), removed jobs: {}",
        declared.handlers().size(),
        declared.jobs().size(),
        removedJobs);
  }

  private void handleRemoved() {
    Set<String> handlers = declared.handlers().keySet();
    List<String> gone =
        scheduler.jobs().stream()
            .filter(j -> !handlers.contains(j.spec().handler()))
            .map(JobInfo::key)
            .toList();
    if (gone.isEmpty()) {
      return;
    }
    switch (removedJobs) {
      case WARN ->
          log.warn(
              "stored job(s) {} have no handler in this application; they will not run here "
                  + "(kairos.removed-jobs=warn; set pause or delete to act on them)",
              gone);
      case PAUSE -> {
        gone.forEach(scheduler::pause);
        log.warn("paused stored job(s) {}: no handler in this application", gone);
      }
      case DELETE -> {
        gone.forEach(scheduler::unschedule);
        log.warn("deleted stored job(s) {}: no handler in this application", gone);
      }
      case FAIL ->
          throw new IllegalStateException(
              "stored job(s) "
                  + gone
                  + " have no handler in this application (kairos.removed-jobs=fail)");
    }
  }

  @Override
  public synchronized void stop() {
    if (running) {
      running = false;
      scheduler.close();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
