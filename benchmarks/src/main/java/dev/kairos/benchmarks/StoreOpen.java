package dev.kairos.benchmarks;

import dev.kairos.jdbc.JdbcStore;
import dev.kairos.jdbc.internal.Dialect;
import dev.kairos.jdbc.internal.Migrations;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Issue 9 item 6: how long {@code JdbcStore.open()} takes on an existing schema, in a fresh JVM (as
 * an application starting sees it: pool start, dialect, schema version check, class loading
 * included; wall and process CPU time, as the machine may be busy). Creates the schema once, then
 * starts {@code --runs} child JVMs that each build a store over it, time {@code open()} and print
 * the milliseconds; prints the median per database. Then opens {@code --runs} more stores one after
 * the other in this JVM (warm: classes loaded, the first store's pool already closed) and prints
 * their median too. Each child also times what {@code open()} skips on such a schema: Flyway's
 * migrate with nothing to do, the first in the JVM and a second one.
 *
 * <p>With {@code --cds}, it then measures {@code --runs} more children started with a dynamic
 * class-data-sharing archive ({@code -XX:SharedArchiveFile}, JDK 13+) that one training child wrote
 * at its exit ({@code -XX:ArchiveClassesAtExit}): what an application that enables AppCDS for its
 * own start pays for {@code open()}.
 *
 * <pre>
 * java -cp benchmarks/target/kairos-benchmarks.jar dev.kairos.benchmarks.StoreOpen [--runs 5] [--cds]
 * </pre>
 */
public final class StoreOpen {
  private StoreOpen() {}

  /**
   * Runs it; with {@code --child <h2-dir|pg-url>} it is one measuring child.
   *
   * @param args {@code [--runs N] [--cds]}, or {@code --child TARGET}
   * @throws Exception if a child fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--child")) {
      child(args[1]);
      return;
    }
    int runs = 5;
    boolean cds = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--cds" -> cds = true;
        case "--runs" -> {
          if (i + 1 == args.length || !args[i + 1].matches("[1-9][0-9]{0,3}")) {
            throw new IllegalArgumentException("--runs needs a count from 1 to 9999");
          }
          runs = Integer.parseInt(args[++i]);
        }
        default ->
            throw new IllegalArgumentException(
                "unknown option " + args[i] + " (usage: [--runs N] [--cds])");
      }
    }
    String pgUrl = "jdbc:postgresql://127.0.0.1:5432/test";
    try (Store h2 = Store.h2(Path.of("target", "bench-data"), "open");
        Store pg = Store.postgres(pgUrl, "postgres", "", "open")) {
      for (Store s : List.of(h2, pg)) {
        String target = s instanceof Store.H2File f ? f.dir().toString() : s.url();
        JdbcStore first = store(target);
        first.open(); // creates the schema
        first.close();
        List<Long> ms = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
          ms.add(measureInChild(target, List.of()));
        }
        printMedian(s.dialect() + ", fresh JVM", ms);
        if (cds) {
          Path archive = Files.createTempFile("kairos-open", ".jsa");
          Files.delete(archive); // the training child writes it
          try {
            measureInChild(target, List.of("-XX:ArchiveClassesAtExit=" + archive));
            List<Long> shared = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
              shared.add(measureInChild(target, List.of("-XX:SharedArchiveFile=" + archive)));
            }
            printMedian(s.dialect() + ", fresh JVM with an AppCDS archive", shared);
          } finally {
            Files.deleteIfExists(archive);
          }
        }
        List<Long> warm = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
          JdbcStore w = store(target);
          long t0 = System.nanoTime();
          w.open();
          warm.add((System.nanoTime() - t0) / 1_000_000);
          w.close();
        }
        printMedian(s.dialect() + ", same JVM", warm);
      }
    }
  }

  private static void printMedian(String what, List<Long> ms) {
    List<Long> sorted = ms.stream().sorted().toList();
    System.out.printf(
        Locale.ROOT,
        "JdbcStore.open() on an existing schema, %s: median %d ms (runs %s)%n",
        what,
        sorted.get(sorted.size() / 2),
        ms);
  }

  private static JdbcStore store(String target) {
    return target.startsWith("jdbc:")
        ? JdbcStore.builder().url(target).user("postgres").build()
        : JdbcStore.h2(Path.of(target));
  }

  private static void child(String target) {
    var os =
        (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    JdbcStore s = store(target);
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    s.open();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
    s.close();
    System.out.println("OPEN_MS " + ms + " " + cpuMs);
    // What open() skips on a schema at the latest version: Flyway's own migrate, which loads
    // Flyway, scans the scripts, validates them against the history and finds nothing to do.
    DataSource ds = dataSource(target);
    long f0 = System.nanoTime();
    Migrations.flyway(ds, dialect(target), JdbcStore.DEFAULT_TABLE_PREFIX, 0).migrate();
    System.out.println("FLYWAY_MS " + (System.nanoTime() - f0) / 1_000_000);
    long f1 = System.nanoTime();
    Migrations.flyway(ds, dialect(target), JdbcStore.DEFAULT_TABLE_PREFIX, 0).migrate();
    System.out.println("FLYWAY_AGAIN_MS " + (System.nanoTime() - f1) / 1_000_000);
  }

  private static Dialect dialect(String target) {
    return target.startsWith("jdbc:") ? Dialect.POSTGRESQL : Dialect.H2;
  }

  private static DataSource dataSource(String target) {
    if (target.startsWith("jdbc:")) {
      PGSimpleDataSource pg = new PGSimpleDataSource();
      pg.setURL(target);
      pg.setUser("postgres");
      return pg;
    }
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:" + Path.of(target, "kairos").toAbsolutePath());
    return h2;
  }

  private static long measureInChild(String target, List<String> jvmOptions) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(
        List.of(
            "-cp", System.getProperty("java.class.path"), StoreOpen.class.getName(), "--child"));
    command.add(target);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    long ms = -1;
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith("FLYWAY_MS ") || line.startsWith("FLYWAY_AGAIN_MS ")) {
          System.out.println("  Flyway migrate() with nothing to do: " + line);
        }
        if (line.startsWith("OPEN_MS ")) {
          String[] f = line.split(" ");
          ms = Long.parseLong(f[1]);
          System.out.println("  open() " + f[1] + " ms wall, " + f[2] + " ms CPU (all threads)");
        }
      }
    }
    if (p.waitFor() != 0 || ms < 0) {
      throw new IllegalStateException("child failed for " + target);
    }
    return ms;
  }
}
