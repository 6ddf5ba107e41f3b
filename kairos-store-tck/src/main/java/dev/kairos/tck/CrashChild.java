package dev.kairos.tck;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import dev.kairos.jdbc.JdbcStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Child JVM of {@link CrashContract}, killed by the test with SIGKILL. Arguments, as key=value:
 *
 * <ul>
 *   <li>the store: {@code h2} (a folder, as {@link JdbcStore#h2(Path)}) or {@code url} (a JDBC URL)
 *       with optional {@code user} and {@code password}; and {@code prefix}, its table prefix;
 *   <li>{@code mode=schedule}, {@code jobs=N}: schedules N daily jobs {@code job-0}, {@code job-1},
 *       ... (handler "noop", first fire a day after {@link #NOW}) one {@code schedule()} call at a
 *       time on a {@link ManualClock} at {@link #NOW}, prints "DONE" and waits to be killed;
 *   <li>{@code mode=slow}, {@code before=millis}: starts a scheduler on the system clock and
 *       schedules the hourly job {@link #SLOW_KEY} (handler "slow"), whose run, {@code before} ms
 *       after it started, prints "RUNNING key scheduledFireTime" and sleeps a minute, so that the
 *       test can kill the JVM in the middle of the run; with {@code during=pause-resume} the run
 *       first pauses and resumes its own job, with {@code during=pause} it pauses it and leaves it
 *       paused; with {@code during=trigger} the job's first fire is in 30 minutes and the run is
 *       that of a {@code triggerNow()}, with {@code during=trigger-paused} that of a paused job;
 *   <li>{@code mode=allow}: as {@code slow}, with the job {@link #ALLOW_KEY} (handler "slow") every
 *       100 ms under {@code Overlap.allow(3)}: three runs go on at once, each printing "RUNNING key
 *       scheduledFireTime" at its start.
 * </ul>
 */
public final class CrashChild {
  /** The clock of {@code mode=schedule}. */
  public static final Instant NOW = Instant.parse("2026-01-05T00:00:00Z");

  /** The key of the job of {@code mode=slow}. */
  public static final String SLOW_KEY = "slow-job";

  /** The key of the job of {@code mode=allow}. */
  public static final String ALLOW_KEY = "allow-job";

  private CrashChild() {}

  /**
   * Runs the child; see the class comment for the arguments.
   *
   * @param args the arguments described in the class comment
   * @throws Exception if the child fails; it then exits with an error
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      a.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    JdbcStore.Builder store =
        a.containsKey("h2")
            ? JdbcStore.builder().h2(Path.of(a.get("h2")))
            : JdbcStore.builder().url(a.get("url")).user(a.get("user")).password(a.get("password"));
    store.tablePrefix(a.get("prefix"));
    switch (a.get("mode")) {
      case "schedule" -> scheduleJobs(store.build(), Integer.parseInt(a.get("jobs")));
      case "slow" ->
          runSlowJob(store.build(), Long.parseLong(a.get("before")), a.getOrDefault("during", ""));
      case "allow" -> runConcurrentJob(store.build());
      default -> throw new IllegalArgumentException("mode: " + a.get("mode"));
    }
  }

  private static void scheduleJobs(JdbcStore store, int n) throws InterruptedException {
    KairosScheduler scheduler =
        Engines.build(
            Kairos.builder().store(store).clock(new ManualClock(NOW)).handler("noop", ctx -> {}));
    scheduler.open();
    for (int i = 0; i < n; i++) {
      scheduler.schedule(
          JobSpec.named("job-" + i)
              .handler("noop")
              .fixedRate(Duration.ofDays(1))
              .startAt(NOW.plus(Duration.ofDays(1))));
    }
    System.out.println("DONE");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // the parent kills this JVM
  }

  private static void runConcurrentJob(JdbcStore store) {
    Scheduler scheduler =
        Kairos.builder()
            .store(store)
            .handler(
                "slow",
                ctx -> {
                  System.out.println("RUNNING " + ctx.key() + " " + ctx.scheduledFireTime());
                  System.out.flush();
                  Thread.sleep(Duration.ofSeconds(60).toMillis());
                })
            .build();
    scheduler.start();
    scheduler.schedule(
        JobSpec.named(ALLOW_KEY)
            .handler("slow")
            .fixedRate(Duration.ofMillis(100))
            .overlap(dev.kairos.Overlap.allow(3)));
  }

  private static void runSlowJob(JdbcStore store, long before, String during) {
    boolean pauseAndResume = during.equals("pause-resume");
    boolean pause = during.equals("pause");
    java.util.concurrent.atomic.AtomicReference<Scheduler> self =
        new java.util.concurrent.atomic.AtomicReference<>();
    Scheduler scheduler =
        Kairos.builder()
            .store(store)
            .handler(
                "slow",
                ctx -> {
                  if (pauseAndResume || pause) { // a change made during the run, as by an operator
                    self.get().pause(ctx.key());
                  }
                  if (pauseAndResume) {
                    self.get().resume(ctx.key());
                  }
                  Thread.sleep(before);
                  System.out.println("RUNNING " + ctx.key() + " " + ctx.scheduledFireTime());
                  System.out.flush();
                  Thread.sleep(Duration.ofSeconds(60).toMillis());
                })
            .build();
    self.set(scheduler);
    scheduler.start();
    if (during.startsWith("trigger")) { // a trigger's run: the timetable's first fire is later
      scheduler.schedule(
          JobSpec.named(SLOW_KEY)
              .handler("slow")
              .fixedRate(Duration.ofHours(1))
              .startAt(Instant.now().plus(Duration.ofMinutes(30))));
      if (during.equals("trigger-paused")) {
        scheduler.pause(SLOW_KEY);
      }
      scheduler.triggerNow(SLOW_KEY);
      return;
    }
    scheduler.schedule(JobSpec.named(SLOW_KEY).handler("slow").fixedRate(Duration.ofHours(1)));
  }
}
