package dev.kairos.engine.internal;

import dev.kairos.JobContext;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.SchedulerListener;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls every listener, logging and ignoring a listener that throws: an exception, or an Error as a
 * handler's run would be (a missing class of a metrics library, an assertion, a stack overflow), so
 * that no listener can drop a job from memory or end a worker thread.
 */
final class Listeners implements SchedulerListener {
  private static final Logger log = LoggerFactory.getLogger(Listeners.class);
  private final List<SchedulerListener> all;

  Listeners(List<SchedulerListener> all) {
    this.all = List.copyOf(all);
  }

  private void each(String event, Consumer<SchedulerListener> call) {
    for (SchedulerListener l : all) {
      try {
        call.accept(l);
      } catch (RuntimeException | Error e) {
        log.warn("listener {} threw on {}; ignored", l, event, Failures.loggable(e));
      }
    }
  }

  @Override
  public void runStarted(JobContext context) {
    each("runStarted", l -> l.runStarted(context));
  }

  @Override
  public void runSucceeded(JobContext context, Duration took) {
    each("runSucceeded", l -> l.runSucceeded(context, took));
  }

  @Override
  public void runFailed(JobContext context, Throwable error, boolean willRetry) {
    each("runFailed", l -> l.runFailed(context, error, willRetry));
  }

  @Override
  public void firesDropped(String key, Instant oldestMissed, long dropped, Misfire policy) {
    each("firesDropped", l -> l.firesDropped(key, oldestMissed, dropped, policy));
  }

  @Override
  public void overlapDropped(String key, Instant oldestDropped, long dropped, Overlap policy) {
    each("overlapDropped", l -> l.overlapDropped(key, oldestDropped, dropped, policy));
  }

  @Override
  public void runWrittenBack(JobContext context, Duration took) {
    each("runWrittenBack", l -> l.runWrittenBack(context, took));
  }

  @Override
  public void claimLost(String key, Instant scheduledFireTime) {
    each("claimLost", l -> l.claimLost(key, scheduledFireTime));
  }

  @Override
  public void changeMissed(String key, Instant dueTime) {
    each("changeMissed", l -> l.changeMissed(key, dueTime));
  }
}
