package dev.kairos.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobInfo;
import dev.kairos.JobState;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.engine.internal.Engines;
import dev.kairos.engine.internal.KairosScheduler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Crashes of a real scheduler JVM ({@link CrashChild}), killed with SIGKILL: every {@code
 * schedule()} that returned before the kill is in the store after it, and a run cut short by the
 * kill is run again by the next scheduler over the store, once, flagged as a recovery, for the same
 * scheduled fire time. Each test has tables of its own (a fresh prefix) in the subclass's database.
 */
public abstract class CrashContract {
  /** How many jobs the child schedules before it is killed. */
  static final int JOBS = 1000;

  /** The longest wait for a line of the child (JVM start and scheduling, on a loaded machine). */
  static final Duration CHILD_TIMEOUT = Duration.ofSeconds(90);

  /** Short-lived JVMs on shared cores: the client compiler alone and one GC thread. */
  static final List<String> CHILD_JVM_OPTIONS =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  @TempDir Path logs;

  private final String prefix = JdbcStoreContract.nextPrefix();
  private final List<KairosScheduler> schedulers = new ArrayList<>();

  /**
   * The database the test's stores live in (skips the test if it is unreachable). The stores of the
   * test are {@code database().builder().tablePrefix(prefix)}.
   *
   * @return the database
   */
  protected abstract TestDatabase database();

  /**
   * How the child JVM reaches the same database, as {@link CrashChild} arguments: {@code h2=<the
   * folder>} or {@code url=<JDBC URL>} with optional {@code user=} and {@code password=} (the table
   * prefix is added by the test).
   *
   * @return the arguments
   */
  protected abstract List<String> childStoreArguments();

  @AfterEach
  void closeSchedulers() throws Exception {
    schedulers.forEach(KairosScheduler::close);
    try (var files = Files.list(logs)) {
      for (Path log : files.toList()) {
        List<String> lines = Files.readAllLines(log);
        if (!lines.isEmpty()) {
          System.out.println("---- " + log.getFileName() + ", last lines ----");
          lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(System.out::println);
        }
      }
    }
  }

  /** Every {@code schedule()} that returned before the SIGKILL is found after it, intact. */
  @Test
  void kill_afterSchedulingThousandJobs_allThousandFoundOnReopen() throws Exception {
    try (ChildJvm child = startChild("mode=schedule", "jobs=" + JOBS)) {
      child.awaitLine("DONE", CHILD_TIMEOUT);
      child.kill();
    }

    KairosScheduler scheduler = scheduler(CrashChild.NOW);
    List<JobInfo> jobs = scheduler.jobs();

    assertThat(jobs)
        .extracting(JobInfo::key)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, JOBS).mapToObj(i -> "job-" + i).toList());
    Instant first = CrashChild.NOW.plus(Duration.ofDays(1));
    assertThat(jobs)
        .allSatisfy(
            j -> {
              assertThat(j.state()).isEqualTo(JobState.SCHEDULED);
              assertThat(j.nextFireTime()).isEqualTo(first);
              assertThat(j.runCount()).isZero();
            });
    assertThat(
            ((Number)
                    database()
                        .row("SELECT COUNT(*) AS n FROM " + prefix + "jobs")
                        .orElseThrow()
                        .get("n"))
                .longValue())
        .as("rows in the jobs table")
        .isEqualTo(JOBS);
  }

  /**
   * A run in progress when its JVM was killed is run again by the next scheduler over the store:
   * once, flagged as a recovery, for the same scheduled fire time — 2 s into the run, and 20–50 ms
   * into it (every run is marked before it starts).
   *
   * @param printAfterMillis how long the run goes on before it prints its fire time
   */
  @ParameterizedTest
  @ValueSource(longs = {2000, 0})
  void kill_duringRun_nextSchedulerRunsThatFireAgainOnceAsRecovery(long printAfterMillis)
      throws Exception {
    killDuringRun_thenExpectOneRecovery(printAfterMillis);
  }

  /**
   * As above, the run having paused and resumed its own job first: before, the resume wrote the row
   * SCHEDULED over the run's mark, and the fire ran again without the recovery flag.
   */
  @Test
  void kill_duringARunThatPausedAndResumedItsJob_nextSchedulerRunsItAgainAsRecovery()
      throws Exception {
    killDuringRun_thenExpectOneRecovery(0, "during=pause-resume");
  }

  /** As above, the run being that of a {@code triggerNow()}. */
  @Test
  void kill_duringATriggeredRun_nextSchedulerRunsItAgainAsRecovery() throws Exception {
    killDuringRun_thenExpectOneRecovery(0, "during=trigger");
  }

  /**
   * A run during which its job was paused, and left paused, cut off 20–50 ms in: the row says
   * {@code PAUSED}, so nothing runs until {@code resume()}, which runs the fire again, once, as a
   * recovery. Before, a paused row kept no mark of the run and the fire ran again unflagged.
   */
  @Test
  void kill_duringARunThatPausedItsJob_resumeRunsItAgainAsRecovery() throws Exception {
    Instant fire = killDuringRun(0, "during=pause");
    List<JobContext> runs = Collections.synchronizedList(new ArrayList<>());
    KairosScheduler scheduler = scheduler(fire, runs);
    assertThat(scheduler.job(CrashChild.SLOW_KEY).orElseThrow().state()).isEqualTo(JobState.PAUSED);
    scheduler.open();
    scheduler.runDue();
    assertThat(runs).as("paused: nothing runs").isEmpty();

    scheduler.resume(CrashChild.SLOW_KEY);
    scheduler.runDue();
    scheduler.runDue();

    assertThat(runs).singleElement().satisfies(c -> assertThat(c.recovery()).isTrue());
    assertThat(runs.get(0).scheduledFireTime()).isEqualTo(fire);
    JobInfo after = scheduler.job(CrashChild.SLOW_KEY).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(after.nextFireTime()).isEqualTo(fire.plus(Duration.ofHours(1)));
  }

  /**
   * The run of a paused job's {@code triggerNow()} cut off 20–50 ms in: the next scheduler runs the
   * trigger again, once, as a recovery, and the job stays paused.
   */
  @Test
  void kill_duringATriggeredRunOfAPausedJob_nextSchedulerRunsItAgainAsRecovery() throws Exception {
    Instant fire = killDuringRun(0, "during=trigger-paused");
    List<JobContext> runs = Collections.synchronizedList(new ArrayList<>());
    KairosScheduler scheduler = scheduler(fire, runs);
    assertThat(scheduler.job(CrashChild.SLOW_KEY).orElseThrow().state()).isEqualTo(JobState.PAUSED);
    scheduler.open();
    scheduler.runDue();
    scheduler.runDue();

    assertThat(runs).singleElement().satisfies(c -> assertThat(c.recovery()).isTrue());
    assertThat(runs.get(0).scheduledFireTime()).isEqualTo(fire);
    JobInfo after = scheduler.job(CrashChild.SLOW_KEY).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.PAUSED);
    assertThat(after.runCount()).isEqualTo(1);
    assertThat(after.nextFireTime()).isAfter(fire.plus(Duration.ofMinutes(29)));
  }

  /**
   * Starts a child running the slow job (with {@code more} arguments), waits for its run to print
   * its fire time, kills the child ({@code printAfterMillis} into the run, or 20–50 ms after the
   * print if 0) and returns that fire time.
   */
  private Instant killDuringRun(long printAfterMillis, String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("mode=slow", "before=" + printAfterMillis));
    args.addAll(List.of(more));
    try (ChildJvm child = startChild(args.toArray(String[]::new))) {
      String line = child.awaitLine("RUNNING " + CrashChild.SLOW_KEY + " ", CHILD_TIMEOUT);
      Instant fire = Instant.parse(line.substring(line.lastIndexOf(' ') + 1));
      if (printAfterMillis == 0) {
        Thread.sleep(20 + ThreadLocalRandom.current().nextLong(31)); // the kill's moment
      }
      child.kill();
      return fire;
    }
  }

  private void killDuringRun_thenExpectOneRecovery(long printAfterMillis, String... more)
      throws Exception {
    Instant fire = killDuringRun(printAfterMillis, more);
    List<JobContext> runs = Collections.synchronizedList(new ArrayList<>());
    KairosScheduler scheduler = scheduler(fire, runs);

    assertThat(scheduler.job(CrashChild.SLOW_KEY).orElseThrow().state())
        .isEqualTo(JobState.RUNNING);
    scheduler.open();
    scheduler.runDue();
    scheduler.runDue();

    assertThat(runs).hasSize(1);
    assertThat(runs.get(0).recovery()).isTrue();
    assertThat(runs.get(0).scheduledFireTime()).isEqualTo(fire);
    JobInfo after = scheduler.job(CrashChild.SLOW_KEY).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(after.runCount()).isEqualTo(1);
    if (List.of(more).contains("during=trigger")) { // the timetable's first fire is still ahead
      assertThat(after.nextFireTime()).isAfter(fire.plus(Duration.ofMinutes(29)));
    } else {
      assertThat(after.nextFireTime()).isEqualTo(fire.plus(Duration.ofHours(1)));
    }
    assertThat(scheduler.history(CrashChild.SLOW_KEY, 10))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.scheduledFireTime()).isEqualTo(fire);
              assertThat(r.recovery()).isTrue();
            });
  }

  /**
   * Three concurrent runs of an {@code allow(3)} job in progress when their JVM is killed (20–50 ms
   * after the third started): the next scheduler over the store runs each of those fires again,
   * once, flagged as a recovery, and nothing else; their records are gone afterwards.
   */
  @Test
  void kill_duringConcurrentRuns_eachRunsAgainOnceAsRecovery() throws Exception {
    List<Instant> fires = new ArrayList<>();
    try (ChildJvm child = startChild("mode=allow")) {
      for (int i = 0; i < 3; i++) {
        String line = child.awaitLine("RUNNING " + CrashChild.ALLOW_KEY + " ", CHILD_TIMEOUT);
        fires.add(Instant.parse(line.substring(line.lastIndexOf(' ') + 1)));
      }
      Thread.sleep(20 + ThreadLocalRandom.current().nextLong(31)); // the kill's moment
      child.kill();
    }
    List<JobContext> runs = Collections.synchronizedList(new ArrayList<>());
    KairosScheduler scheduler = scheduler(fires.get(0), runs);

    scheduler.open();
    assertThat(scheduler.runBackfill()).isEqualTo(3);
    scheduler.runDue();

    assertThat(runs)
        .extracting(JobContext::scheduledFireTime)
        .containsExactlyInAnyOrderElementsOf(fires);
    assertThat(runs).allSatisfy(r -> assertThat(r.recovery()).isTrue());
    assertThat(runs).allSatisfy(r -> assertThat(r.backfill()).isFalse());
    assertThat(scheduler.history(CrashChild.ALLOW_KEY, 10))
        .extracting(dev.kairos.RunRecord::scheduledFireTime)
        .containsExactlyInAnyOrderElementsOf(fires);
    assertThat(scheduler.job(CrashChild.ALLOW_KEY).orElseThrow().runCount()).isEqualTo(3);
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private ChildJvm startChild(String... args) throws Exception {
    List<String> all = new ArrayList<>(childStoreArguments());
    all.add("prefix=" + prefix);
    all.addAll(List.of(args));
    return ChildJvm.start(
        CHILD_JVM_OPTIONS,
        CrashChild.class,
        logs.resolve("child-" + args[0].substring("mode=".length()) + ".log"),
        all.toArray(String[]::new));
  }

  private KairosScheduler scheduler(Instant now) {
    return scheduler(now, new ArrayList<>());
  }

  /** A scheduler over the test's tables (not opened), on a manual clock at {@code now}. */
  private KairosScheduler scheduler(Instant now, List<JobContext> runs) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(database().builder().tablePrefix(prefix).build())
                .clock(new ManualClock(now))
                .handler("noop", runs::add)
                .handler("slow", runs::add));
    schedulers.add(s);
    return s;
  }
}
