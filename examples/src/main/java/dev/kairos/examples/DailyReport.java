package dev.kairos.examples;

import dev.kairos.JobContext;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.jdbc.JdbcStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * The main example: restart-safe jobs on embedded H2 in {@code ./kairos-data}, on a clock that runs
 * faster than real time. Stop it (Ctrl-C or kill), start it again: the fires missed while it was
 * down are handled by each job's misfire policy, and the output says which.
 *
 * <ul>
 *   <li>{@code nightly-report}: every night at 02:00 Berlin time (cron), {@code Misfire.catchUp()}:
 *       every missed night is made up, oldest first.
 *   <li>{@code hourly-sync}: every hour, {@code Misfire.fireOnce()}: one run stands for all the
 *       hours missed.
 * </ul>
 *
 * <p>The simulated clock is continuous across restarts: its origin is kept in {@code
 * kairos-data/clock.txt}, so ten real seconds of downtime at {@code --speed 3600} are ten simulated
 * hours. Options: {@code --speed N} (default 3600), {@code --dir PATH}, {@code --reset} (delete the
 * data first), {@code --seconds N} (stop by itself after N real seconds), {@code --resume} (start
 * the simulated clock where the program was last seen running, so a long real pause is no
 * downtime).
 *
 * <p>"Last seen" is written at every run and at a clean stop, so after a {@code kill -9} it is the
 * last run, not an older clean stop.
 */
public final class DailyReport {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("EEE dd MMM HH:mm", Locale.ROOT).withZone(BERLIN);

  /**
   * Misfire threshold, in simulated time: at 3600x, five simulated minutes are 83 real ms, so a
   * fire is a misfire only when the program really was not running.
   */
  private static final Duration THRESHOLD = Duration.ofMinutes(5);

  private DailyReport() {}

  /** Runs until stopped. */
  public static void main(String[] args) throws Exception {
    double speed = 3600;
    Path dir = Path.of("kairos-data");
    long seconds = 0;
    boolean reset = false;
    boolean resume = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--speed" -> speed = Double.parseDouble(args[++i]);
        case "--dir" -> dir = Path.of(args[++i]);
        case "--seconds" -> seconds = Long.parseLong(args[++i]);
        case "--reset" -> reset = true;
        case "--resume" -> resume = true;
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (use --speed N, --dir PATH, --seconds N, --reset, --resume)");
      }
    }
    if (reset) {
      deleteTree(dir);
    }
    Files.createDirectories(dir);
    Path lastSeenFile = dir.resolve("last-seen.txt");
    Instant stoppedAt = readInstant(lastSeenFile);
    TimeSource clock = continuousClock(dir.resolve("clock.txt"), speed, resume ? stoppedAt : null);
    System.out.printf(
        "Kairos main example: H2 store in %s, clock x%.0f (1 real second = %s), Berlin time%n",
        dir.toAbsolutePath(), speed, human(Duration.ofMillis((long) (1000 * speed))));
    if (stoppedAt != null) {
      System.out.printf(
          "Restarted. Last seen running at %s, now %s: down for %s (simulated).%n",
          TIME.format(stoppedAt),
          TIME.format(clock.now()),
          human(Duration.between(stoppedAt, clock.now())));
    }

    Scheduler scheduler =
        Kairos.builder()
            .store(JdbcStore.h2(dir))
            .clock(clock)
            .workers(2)
            .gracePeriod(Duration.ofSeconds(2))
            .handler(
                "report",
                ctx -> {
                  say(
                      clock,
                      ctx,
                      "nightly report for the night of " + TIME.format(ctx.scheduledFireTime()));
                  writeQuietly(lastSeenFile, clock.now().toString());
                })
            .handler(
                "sync",
                ctx -> {
                  say(clock, ctx, "synced");
                  writeQuietly(lastSeenFile, clock.now().toString());
                })
            .listener(new Explainer(clock))
            .build();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  scheduler.close();
                  writeQuietly(lastSeenFile, clock.now().toString());
                  System.out.printf(
                      "Stopped at %s. Start again to see the missed fires handled.%n",
                      TIME.format(clock.now()));
                  stopped.countDown();
                }));

    JobInfo report =
        scheduler.schedule(
            JobSpec.named("nightly-report")
                .handler("report")
                .cron("0 0 2 * * ?", BERLIN)
                .misfire(Misfire.catchUp().threshold(THRESHOLD)));
    JobInfo sync =
        scheduler.schedule(
            JobSpec.named("hourly-sync")
                .handler("sync")
                .fixedRate(Duration.ofHours(1))
                .startAt(Instant.parse("2026-01-01T00:00:00Z"))
                .misfire(Misfire.fireOnce().threshold(THRESHOLD)));
    System.out.printf(
        "nightly-report: cron 0 0 2 * * ? Europe/Berlin, catchUp(); next %s%n",
        report.next().map(TIME::format).orElse("-"));
    System.out.printf(
        "hourly-sync:    every hour, fireOnce();          next %s%n",
        sync.next().map(TIME::format).orElse("-"));
    System.out.println("Press Ctrl-C to stop.");
    scheduler.start();
    if (seconds > 0) {
      Thread.sleep(Duration.ofSeconds(seconds).toMillis()); // demo length, real time
      System.exit(0);
    }
    stopped.await();
  }

  private static void say(TimeSource clock, JobContext ctx, String what) {
    String how =
        ctx.missedFires() == 0
            ? "on time"
            : ctx.missedFires() == 1
                ? "missed fire, made up"
                : "one run for " + ctx.missedFires() + " missed fires";
    System.out.printf(
        "  %s  %-14s %-9s %s (%s)%n",
        TIME.format(clock.now()),
        ctx.key(),
        "[" + TIME.format(ctx.scheduledFireTime()).substring(4) + "]",
        what,
        how);
  }

  /** Prints what a misfire policy dropped. */
  private record Explainer(TimeSource clock) implements SchedulerListener {
    @Override
    public void firesDropped(String key, Instant oldest, long dropped, Misfire policy) {
      String what =
          policy instanceof Misfire.FireOnce
              ? "folded into one run by fireOnce()"
              : policy instanceof Misfire.Skip
                  ? "skipped by skip()"
                  : "dropped by catchUp(" + ((Misfire.CatchUp) policy).max() + "): older ones";
      System.out.printf(
          "  %s  %-14s %d missed fire(s) since %s %s%n",
          TIME.format(clock.now()),
          key,
          dropped + (policy instanceof Misfire.FireOnce ? 1 : 0),
          TIME.format(oldest),
          what);
    }
  }

  /**
   * A clock running {@code speed} times faster than real time, continuous across restarts; or, if
   * {@code resumeAt} is given, starting there.
   */
  private static TimeSource continuousClock(Path file, double speed, Instant resumeAt)
      throws IOException {
    Instant realNow = TimeSource.system().now();
    if (!Files.exists(file)) {
      // Simulated time starts on a Sunday evening, so the first night comes a few seconds in.
      Files.writeString(file, realNow + " 2026-01-04T22:00:00Z\n");
    }
    String[] parts = Files.readString(file).trim().split(" ");
    Instant realOrigin = Instant.parse(parts[0]);
    Instant simOrigin = Instant.parse(parts[1]);
    double elapsed = Duration.between(realOrigin, realNow).toNanos() * speed;
    Instant simNow = resumeAt != null ? resumeAt : simOrigin.plusNanos((long) elapsed);
    // Re-anchor the file so a change of --speed keeps the timeline continuous.
    Files.writeString(file, realNow + " " + simNow + "\n");
    return TimeSource.accelerated(simNow, speed);
  }

  private static Instant readInstant(Path file) throws IOException {
    return Files.exists(file) ? Instant.parse(Files.readString(file).trim()) : null;
  }

  private static void writeQuietly(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      System.err.println("could not write " + file + ": " + e);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var paths = Files.walk(dir)) {
        for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private static String human(Duration d) {
    long h = d.toHours();
    return h >= 48
        ? String.format("%.1f days", d.toMinutes() / 1440.0)
        : h >= 1
            ? String.format("%d h %02d min", h, d.toMinutesPart())
            : String.format("%d min %02d s", d.toMinutes(), d.toSecondsPart());
  }
}
