package dev.kairos.benchmarks;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * How large the embedded H2 file grows under a load (issue #10, item 7): {@code fires} (50 jobs on
 * a 20 ms fixed rate) or {@code api} (8 threads calling schedule, pause, resume, trigger and
 * unschedule on 50 keys), for a number of seconds, printing the file size every 10 s and after
 * close.
 *
 * <pre>
 * mvn -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/kairos-benchmarks.jar dev.kairos.benchmarks.H2Growth fires 60 /tmp/h2g
 * </pre>
 *
 * <p>A fourth argument replaces the store's H2 URL settings (for comparing them), e.g. {@code
 * ";WRITE_DELAY=0;MAX_COMPACT_TIME=0"} (the settings before {@code RETENTION_TIME=0}); a fifth runs
 * an SQL statement (a sixth, default {@code CHECKPOINT}) every that many milliseconds on a
 * connection of its own. (A {@code CHECKPOINT} every second did not stop the growth: 315 MB after
 * 16,500 fires.)
 */
public final class H2Growth {
  private H2Growth() {}

  /** Runs the load; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    String mode = args[0];
    int seconds = Integer.parseInt(args[1]);
    Path dir = Path.of(args[2]);
    deleteFolder(dir);
    Files.createDirectories(dir);
    JdbcStore.Builder b = JdbcStore.builder();
    if (args.length > 3) {
      b.url("jdbc:h2:async:" + dir.toAbsolutePath().resolve("kairos") + args[3]);
    } else {
      b.h2(dir);
    }
    AtomicLong fires = new AtomicLong();
    AtomicLong calls = new AtomicLong();
    Scheduler s =
        Kairos.builder()
            .store(b.build())
            .workers(4)
            .handler("h", ctx -> fires.incrementAndGet())
            .build();
    s.start();
    List<Thread> threads = new ArrayList<>();
    long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    if (mode.equals("fires")) {
      for (int i = 0; i < 50; i++) {
        s.schedule(
            JobSpec.named("job-" + i)
                .handler("h")
                .fixedRate(Duration.ofMillis(20))
                .misfire(Misfire.skip()));
      }
    } else {
      for (int t = 0; t < 8; t++) {
        Random random = new Random(t);
        Thread th =
            new Thread(
                () -> {
                  while (System.nanoTime() < end) {
                    String key = "key-" + random.nextInt(50);
                    try {
                      switch (random.nextInt(5)) {
                        case 0 ->
                            s.schedule(
                                JobSpec.named(key)
                                    .handler("h")
                                    .data("x".repeat(random.nextInt(200)))
                                    .fixedRate(Duration.ofMillis(50 + random.nextInt(500))));
                        case 1 -> s.pause(key);
                        case 2 -> s.resume(key);
                        case 3 -> s.triggerNow(key);
                        default -> s.unschedule(key);
                      }
                      calls.incrementAndGet();
                    } catch (RuntimeException e) {
                      // a race with another thread; keep going
                    }
                  }
                });
        th.start();
        threads.add(th);
      }
    }
    if (args.length > 4) {
      // Measurement only: a side connection running CHECKPOINT every args[4] ms.
      String url = "jdbc:h2:async:" + dir.toAbsolutePath().resolve("kairos") + args[3];
      long every = Long.parseLong(args[4]);
      Thread cp =
          new Thread(
              () -> {
                try (var c = java.sql.DriverManager.getConnection(url);
                    var st = c.createStatement()) {
                  while (System.nanoTime() < end) {
                    Thread.sleep(every);
                    st.execute(args.length > 5 ? args[5] : "CHECKPOINT");
                  }
                } catch (Exception e) {
                  e.printStackTrace();
                }
              });
      cp.setDaemon(true);
      cp.start();
    }
    long t0 = System.nanoTime();
    while (System.nanoTime() < end) {
      Thread.sleep(Math.min(10_000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
      System.out.printf(
          "%4d s: %,d fires, %,d API calls, file %,d bytes%n",
          (System.nanoTime() - t0) / 1_000_000_000, fires.get(), calls.get(), size(dir));
    }
    for (Thread th : threads) {
      th.join();
    }
    long closeStart = System.nanoTime();
    s.close();
    System.out.printf(
        "closed in %d ms: %,d fires, %,d API calls, file %,d bytes%n",
        (System.nanoTime() - closeStart) / 1_000_000, fires.get(), calls.get(), size(dir));
  }

  private static long size(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static void deleteFolder(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
