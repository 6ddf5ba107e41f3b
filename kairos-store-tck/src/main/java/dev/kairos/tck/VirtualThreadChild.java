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
import java.util.ArrayList;
import java.util.List;
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
 * raced}) as fast as it can. Then it waits (at most {@value #CATCH_UP_SECONDS} s) until every fire
 * of the untouched jobs due before the end has run, as {@code Misfire.catchUp()} makes up fires a
 * busy machine ran late, closes the scheduler and prints one line: {@code RESULT runs=N
 * duplicates=D missing=M virtual=V platform=P; <missing fires> closed C ms after the end}, where a
 * duplicate is a (job, fire time) run twice, a missing fire is one of the untouched jobs due before
 * the end (and not before the jobs were scheduled) that never ran, and V and P count the runs on
 * virtual and on platform threads. The missing fires are named per job (how many, the first one's
 * offset from the start, the last run's fire time and start).
 *
 * <p>Argument: {@code h2=<folder>}.
 */
public final class VirtualThreadChild {
  static final int RATE_JOBS = 20;
  static final int ONE_SHOTS = 20;
  static final long PERIOD_MS = 50;
  static final int SECONDS = 3;
  static final long CATCH_UP_SECONDS = 30;

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
    Map<String, Instant[]> last = new ConcurrentHashMap<>(); // key -> {fire time, began}
    AtomicInteger virtual = new AtomicInteger();
    AtomicInteger platform = new AtomicInteger();
    Job record =
        ctx -> {
          runs.merge(ctx.key() + "@" + ctx.scheduledFireTime(), 1, Integer::sum);
          last.put(ctx.key(), new Instant[] {ctx.scheduledFireTime(), Instant.now()});
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
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < RATE_JOBS; i++) {
      specs.add(
          JobSpec.named("rate-" + i)
              .handler("record")
              .fixedRate(Duration.ofMillis(PERIOD_MS))
              .startAt(t0)
              .misfire(Misfire.catchUp()));
    }
    for (int i = 0; i < ONE_SHOTS; i++) {
      specs.add(JobSpec.named("once-" + i).handler("record").at(t0.plusMillis(100L * i + 50)));
    }
    specs.add(JobSpec.named("raced").handler("record").fixedRate(Duration.ofMillis(PERIOD_MS)));
    scheduler.scheduleAll(specs);
    // A start time already past when the job is scheduled means its next slot (README,
    // "Schedules"): on a slow machine the first slots may precede the call's return and are no
    // fires.
    Instant scheduled = Instant.now();
    Instant end = t0.plusSeconds(SECONDS);
    while (Instant.now().isBefore(end)) {
      scheduler.pause("raced");
      scheduler.triggerNow("raced");
      scheduler.resume("raced");
      scheduler.triggerNow("raced");
    }
    // Fires still owed at the end (a slow or busy machine runs behind; catchUp() makes up every
    // missed fire) get up to CATCH_UP_SECONDS to run: a lost fire never comes, a late one does.
    Instant deadline = Instant.now().plusSeconds(CATCH_UP_SECONDS);
    while (owed(runs, t0, scheduled, end) > 0 && Instant.now().isBefore(deadline)) {
      Thread.sleep(20);
    }
    scheduler.close();

    Instant closed = Instant.now();
    long duplicates = runs.values().stream().filter(n -> n > 1).count();
    int missing = 0;
    StringBuilder which = new StringBuilder();
    for (int i = 0; i < RATE_JOBS; i++) {
      int of = 0;
      long first = -1;
      for (Instant t = t0; t.isBefore(end); t = t.plusMillis(PERIOD_MS)) {
        if (!t.isBefore(scheduled) && !runs.containsKey("rate-" + i + "@" + t)) {
          of++;
          first = first < 0 ? Duration.between(t0, t).toMillis() : first;
        }
      }
      missing += of;
      if (of > 0) {
        Instant[] fire = last.getOrDefault("rate-" + i, new Instant[] {t0, t0});
        which.append(
            String.format(
                " rate-%d:%d-from-t0+%dms(last run: t0+%dms began at t0+%dms)",
                i,
                of,
                first,
                Duration.between(t0, fire[0]).toMillis(),
                Duration.between(t0, fire[1]).toMillis()));
      }
    }
    for (int i = 0; i < ONE_SHOTS; i++) {
      if (!runs.containsKey("once-" + i + "@" + t0.plusMillis(100L * i + 50))) {
        missing++;
        which.append(" once-").append(i);
      }
    }
    System.out.printf(
        "RESULT runs=%d duplicates=%d missing=%d virtual=%d platform=%d;%s closed %d ms after the end%n",
        runs.values().stream().mapToInt(Integer::intValue).sum(),
        duplicates,
        missing,
        virtual.get(),
        platform.get(),
        which,
        Duration.between(end, closed).toMillis());
  }

  /**
   * How many fires of the untouched jobs due from {@code scheduled} to {@code end} have not run.
   */
  private static int owed(Map<String, Integer> runs, Instant t0, Instant scheduled, Instant end) {
    int owed = 0;
    for (int i = 0; i < RATE_JOBS; i++) {
      for (Instant t = t0; t.isBefore(end); t = t.plusMillis(PERIOD_MS)) {
        owed += !t.isBefore(scheduled) && !runs.containsKey("rate-" + i + "@" + t) ? 1 : 0;
      }
    }
    for (int i = 0; i < ONE_SHOTS; i++) {
      owed += runs.containsKey("once-" + i + "@" + t0.plusMillis(100L * i + 50)) ? 0 : 1;
    }
    return owed;
  }

  /** {@code Thread.ofVirtual().name("kairos-vt-", 0).factory()}, by reflection. */
  private static ThreadFactory virtualThreads() throws ReflectiveOperationException {
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    Class<?> type = Class.forName("java.lang.Thread$Builder");
    builder = type.getMethod("name", String.class, long.class).invoke(builder, "kairos-vt-", 0L);
    return (ThreadFactory) type.getMethod("factory").invoke(builder);
  }
}
