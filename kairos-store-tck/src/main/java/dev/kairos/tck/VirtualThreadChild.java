package dev.kairos.tck;

import dev.kairos.Job;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child JVM of {@code VirtualThreadWorkersTest}, run on a JDK of version 21 or later: a scheduler
 * over an H2 file whose workers are virtual threads ({@code Thread.ofVirtual().factory()}, reached
 * by reflection so that this class compiles for Java 17). {@value #RATE_JOBS} jobs run every
 * {@value #PERIOD_MS} ms and {@value #ONE_SHOTS} one-shots once, each run blocking 2 ms, for
 * {@value #SECONDS} s, while the main thread pauses, resumes and triggers one more job ({@code
 * raced}) as fast as it can. Then it closes the scheduler and prints one line: {@code RESULT runs=N
 * duplicates=D missing=M virtual=V platform=P}, where a duplicate is a (job, fire time) run twice,
 * a missing fire is one of the untouched jobs due at least {@value #SETTLE_MS} ms before the end
 * that never ran, and V and P count the runs on virtual and on platform threads.
 *
 * <p>Argument: {@code h2=<folder>}.
 */
public final class VirtualThreadChild {
  static final int RATE_JOBS = 20;
  static final int ONE_SHOTS = 20;
  static final long PERIOD_MS = 50;
  static final int SECONDS = 3;
  static final long SETTLE_MS = 500;

  private VirtualThreadChild() {}

  /**
   * Runs the child; see the class comment.
   *
   * @param args {@code h2=<folder>}
   * @throws Exception if the child fails; it then exits with an error
   */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0].substring("h2=".length()));
    Method isVirtual = Thread.class.getMethod("isVirtual");
    Map<String, Integer> runs = new ConcurrentHashMap<>();
    AtomicInteger virtual = new AtomicInteger();
    AtomicInteger platform = new AtomicInteger();
    Job record =
        ctx -> {
          runs.merge(ctx.key() + "@" + ctx.scheduledFireTime(), 1, Integer::sum);
          if ((Boolean) isVirtual.invoke(Thread.currentThread())) {
            virtual.incrementAndGet();
          } else {
            platform.incrementAndGet();
          }
          Thread.sleep(2); // a handler that blocks, as most jobs do
        };
    Scheduler scheduler =
        Kairos.builder()
            .store(JdbcStore.h2(dir))
            .threadFactory(virtualThreads())
            .workers(8)
            .handler("record", record)
            .build();
    scheduler.start();
    Instant t0 = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
    for (int i = 0; i < RATE_JOBS; i++) {
      scheduler.schedule(
          JobSpec.named("rate-" + i)
              .handler("record")
              .fixedRate(Duration.ofMillis(PERIOD_MS))
              .startAt(t0)
              .misfire(Misfire.catchUp()));
    }
    for (int i = 0; i < ONE_SHOTS; i++) {
      scheduler.schedule(
          JobSpec.named("once-" + i).handler("record").at(t0.plusMillis(100L * i + 50)));
    }
    scheduler.schedule(
        JobSpec.named("raced").handler("record").fixedRate(Duration.ofMillis(PERIOD_MS)));
    Instant end = t0.plusSeconds(SECONDS);
    while (Instant.now().isBefore(end)) {
      scheduler.pause("raced");
      scheduler.triggerNow("raced");
      scheduler.resume("raced");
      scheduler.triggerNow("raced");
    }
    scheduler.close();

    long duplicates = runs.values().stream().filter(n -> n > 1).count();
    int missing = 0;
    Instant due = end.minusMillis(SETTLE_MS);
    for (int i = 0; i < RATE_JOBS; i++) {
      for (Instant t = t0; t.isBefore(due); t = t.plusMillis(PERIOD_MS)) {
        missing += runs.containsKey("rate-" + i + "@" + t) ? 0 : 1;
      }
    }
    for (int i = 0; i < ONE_SHOTS; i++) {
      missing += runs.containsKey("once-" + i + "@" + t0.plusMillis(100L * i + 50)) ? 0 : 1;
    }
    System.out.printf(
        "RESULT runs=%d duplicates=%d missing=%d virtual=%d platform=%d%n",
        runs.values().stream().mapToInt(Integer::intValue).sum(),
        duplicates,
        missing,
        virtual.get(),
        platform.get());
  }

  /** {@code Thread.ofVirtual().name("kairos-vt-", 0).factory()}, by reflection. */
  private static ThreadFactory virtualThreads() throws ReflectiveOperationException {
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    Class<?> type = Class.forName("java.lang.Thread$Builder");
    builder = type.getMethod("name", String.class, long.class).invoke(builder, "kairos-vt-", 0L);
    return (ThreadFactory) type.getMethod("factory").invoke(builder);
  }
}
