package dev.kairos.engine.internal;

import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A scheduler over a {@link ManualClock} driven from the test thread through the step API: no
 * worker threads, no sleeping. Records every run's context.
 */
public final class Harness {
  /** Time zero of every timeline: 2026-01-05T00:00:00Z, a Monday. */
  public static final Instant T0 = Instant.parse("2026-01-05T00:00:00Z");

  public final ManualClock clock = new ManualClock(T0);
  public final List<JobContext> runs = new CopyOnWriteArrayList<>();
  public final KairosScheduler scheduler;
  public final JobStore store;

  public Harness(Job body) {
    this(new InMemoryStore(), body);
  }

  public Harness(JobStore store, Job body) {
    this(store, Kairos.builder(), body);
  }

  public Harness(JobStore store, Kairos.Builder builder, Job body) {
    this.store = store;
    scheduler =
        Engines.build(
            builder
                .store(store)
                .clock(clock)
                .handler(
                    "h",
                    ctx -> {
                      runs.add(ctx);
                      body.run(ctx);
                    }));
    scheduler.open();
  }

  /** Milliseconds since {@link #T0}. */
  public static long ms(Instant t) {
    return Duration.between(T0, t).toMillis();
  }

  /** Moves the clock to the next due fire (if in the future) and runs what is due, repeatedly. */
  public void runUntil(Instant end) {
    for (; ; ) {
      scheduler.runDue();
      Instant next = scheduler.nextDue().orElse(null);
      if (next == null || next.isAfter(end)) {
        if (clock.now().isBefore(end)) {
          clock.set(end);
          scheduler.runDue();
        }
        return;
      }
      if (next.isAfter(clock.now())) {
        clock.set(next);
      }
    }
  }

  /** Runs until {@code n} runs were recorded or the clock passes {@code limit}. */
  public void runUntilCount(int n, Duration limit) {
    Instant end = T0.plus(limit);
    while (runs.size() < n) {
      scheduler.runDue();
      Instant next = scheduler.nextDue().orElse(null);
      if (next == null || next.isAfter(end)) {
        return;
      }
      if (next.isAfter(clock.now())) {
        clock.set(next);
      }
    }
  }

  /** Start offsets (ms since T0) of the recorded runs. */
  public List<Long> starts() {
    return runs.stream().map(c -> ms(c.actualStart())).toList();
  }

  /** Scheduled fire offsets (ms since T0) of the recorded runs. */
  public List<Long> fires() {
    return runs.stream().map(c -> ms(c.scheduledFireTime())).toList();
  }
}
