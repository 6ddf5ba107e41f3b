package dev.kairos.benchmarks;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Does H2, with the URL options of {@code JdbcStore.h2(dir)}, keep every commit that returned when
 * its process is SIGKILLed? A child JVM commits on several connections at once (each transaction
 * bumps a counter row, inserts a history row and deletes old ones, so freed space is reused) and
 * prints each counter value after its commit returned; the parent kills it at a random moment,
 * opens the file and checks that every counter is at least the last value printed. Repeats on the
 * same file, as a restarted scheduler would. docs/RELIABILITY.md (stop 49) says why.
 *
 * <pre>
 * java -cp kairos-benchmarks.jar dev.kairos.benchmarks.H2KillProbe DIR KILLS [THREADS] [HOGS] [compact|plain] [mix]
 * </pre>
 *
 * HOGS busy threads in the child compete for the CPU; {@code compact} runs {@code SHUTDOWN COMPACT}
 * before each check, as {@code H2Compaction} does at open; {@code mix} varies the size of each
 * commit (a few transactions insert up to 60 history rows, rows of 0–600 characters, short pauses)
 * so that freed space comes in many sizes. The file as the kill left it is kept as {@code
 * lost-K.mv.db} when kill K lost a commit. Exits 1 if a commit was lost.
 */
public final class H2KillProbe {
  private static final int ROWS_PER_THREAD = 50;

  private H2KillProbe() {}

  /** The URL options of {@code JdbcStore.h2(dir)}. */
  static String url(Path dir) {
    return "jdbc:h2:async:"
        + dir.resolve("kairos")
        + ";WRITE_DELAY=0;MAX_COMPACT_TIME=0;RETENTION_TIME=0;ANALYZE_AUTO=0;DB_CLOSE_ON_EXIT=FALSE";
  }

  /**
   * Runs the probe (or, with {@code child} first, one child).
   *
   * @param args see the class comment
   * @throws Exception if the probe cannot run
   */
  public static void main(String[] args) throws Exception {
    if (args[0].equals("child")) {
      child(
          Path.of(args[1]),
          Integer.parseInt(args[2]),
          Integer.parseInt(args[3]),
          Boolean.parseBoolean(args[4]));
      return;
    }
    Path dir = Path.of(args[0]);
    int kills = Integer.parseInt(args[1]);
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : 8;
    int hogs = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    boolean compact = args.length > 4 && args[4].equals("compact");
    boolean mix = args.length > 5 && args[5].equals("mix");
    Files.createDirectories(dir);
    try (Connection c = DriverManager.getConnection(url(dir));
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS counters(id INT PRIMARY KEY, v BIGINT)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS history(id BIGINT AUTO_INCREMENT PRIMARY KEY, k INT,"
              + " v BIGINT, pad VARCHAR(600))");
      s.execute("CREATE INDEX IF NOT EXISTS history_k ON history(k, v)");
      for (int i = 0; i < threads * ROWS_PER_THREAD; i++) {
        s.execute(
            "MERGE INTO counters KEY(id) VALUES("
                + i
                + ", COALESCE((SELECT v FROM counters WHERE id = "
                + i
                + "), 0))");
      }
    }
    Random random = new Random();
    int lossy = 0;
    int regressed = 0;
    for (int k = 0; k < kills; k++) {
      Map<Integer, Long> acked = runAndKill(dir, threads, hogs, mix, 1500 + random.nextInt(2000));
      Path killed = dir.resolve("killed.mv.db");
      Files.copy(
          dir.resolve("kairos.mv.db"), killed, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      if (compact) {
        try (Connection c = DriverManager.getConnection(url(dir));
            Statement s = c.createStatement()) {
          s.execute("SHUTDOWN COMPACT");
        }
      }
      int lost = 0;
      try (Connection c = DriverManager.getConnection(url(dir));
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SELECT id, v FROM counters")) {
        while (r.next()) {
          Long printed = acked.get(r.getInt(1));
          if (printed != null && r.getLong(2) < printed) {
            lost++;
            System.out.println(
                "kill "
                    + k
                    + ": row "
                    + r.getInt(1)
                    + " committed "
                    + printed
                    + ", read "
                    + r.getLong(2));
          }
        }
      }
      long[] identity = identityAfterKill(dir);
      if (identity[0] <= identity[1]) {
        regressed++;
        System.out.println(
            "kill "
                + k
                + ": the history identity went back: next value "
                + identity[0]
                + ", highest id in the table "
                + identity[1]);
      }
      System.out.println(
          "kill " + k + ": " + acked.size() + " rows committed to, " + lost + " lost");
      lossy += lost > 0 ? 1 : 0;
      if (lost > 0) {
        Files.move(killed, dir.resolve("lost-" + k + ".mv.db"));
      }
    }
    System.out.println("kills that lost a commit: " + lossy + " of " + kills);
    System.out.println("kills after which the identity went back: " + regressed + " of " + kills);
    System.exit(lossy > 0 || regressed > 0 ? 1 : 0);
  }

  /**
   * The value the history table's identity gives next (taken by an insert that is rolled back) and
   * the highest id in the table: the first must be above the second.
   */
  private static long[] identityAfterKill(Path dir) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(dir));
        Statement s = c.createStatement()) {
      long max;
      try (ResultSet r = s.executeQuery("SELECT COALESCE(MAX(id), 0) FROM history")) {
        r.next();
        max = r.getLong(1);
      }
      c.setAutoCommit(false);
      s.executeUpdate(
          "INSERT INTO history(k, v, pad) VALUES(-1, -1, '')", Statement.RETURN_GENERATED_KEYS);
      long next;
      try (ResultSet r = s.getGeneratedKeys()) {
        r.next();
        next = r.getLong(1);
      }
      c.rollback();
      return new long[] {next, max};
    }
  }

  /** Starts a child, reads what it committed for {@code millis} ms, SIGKILLs it. */
  private static Map<Integer, Long> runAndKill(
      Path dir, int threads, int hogs, boolean mix, long millis)
      throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                H2KillProbe.class.getName(),
                "child",
                dir.toString(),
                String.valueOf(threads),
                String.valueOf(hogs),
                String.valueOf(mix))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    Map<Integer, Long> acked = new ConcurrentHashMap<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  String[] f = line.split(" ");
                  acked.merge(Integer.parseInt(f[0]), Long.parseLong(f[1]), Math::max);
                }
              } catch (IOException e) {
                // the child is gone
              }
            });
    reader.start();
    Thread.sleep(millis);
    p.destroyForcibly(); // SIGKILL on Linux
    p.waitFor();
    reader.join();
    return acked;
  }

  private static void child(Path dir, int threads, int hogs, boolean mix)
      throws InterruptedException {
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false);
    List<Thread> writers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t * ROWS_PER_THREAD;
      Thread w = new Thread(() -> commitForever(dir, first, mix, out));
      w.start();
      writers.add(w);
    }
    for (int i = 0; i < hogs; i++) {
      Thread hog =
          new Thread(
              () -> {
                long x = 0;
                while (!Thread.currentThread().isInterrupted()) {
                  x += System.nanoTime() & 7;
                }
              });
      hog.setDaemon(true);
      hog.start();
    }
    for (Thread w : writers) {
      w.join();
    }
  }

  private static void commitForever(Path dir, int first, boolean mix, PrintStream out) {
    Random random = new Random(first);
    try (Connection c = DriverManager.getConnection(url(dir));
        Statement s = c.createStatement()) {
      long[] v = new long[ROWS_PER_THREAD];
      for (int i = 0; i < ROWS_PER_THREAD; i++) {
        try (ResultSet r = s.executeQuery("SELECT v FROM counters WHERE id = " + (first + i))) {
          r.next();
          v[i] = r.getLong(1);
        }
      }
      c.setAutoCommit(false);
      while (true) {
        int i = random.nextInt(ROWS_PER_THREAD);
        int row = first + i;
        long next = v[i] + 1;
        s.executeUpdate("UPDATE counters SET v = " + next + " WHERE id = " + row);
        int rows = mix && random.nextInt(20) == 0 ? 1 + random.nextInt(60) : 1;
        try {
          insertHistory(s, row, next, rows, mix, random);
        } catch (SQLException e) {
          if (!"23505".equals(e.getSQLState())) {
            throw e;
          }
          // a history id taken twice: the identity went back after a kill (counted by the parent)
          c.rollback();
          continue;
        }
        s.executeUpdate("DELETE FROM history WHERE k = " + row + " AND v < " + (next - 5));
        if (mix && random.nextInt(10) == 0) {
          Thread.sleep(random.nextInt(3));
        }
        c.commit();
        v[i] = next;
        synchronized (out) {
          out.println(row + " " + next);
          out.flush();
        }
      }
    } catch (SQLException e) {
      e.printStackTrace();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void insertHistory(
      Statement s, int row, long value, int rows, boolean mix, Random random) throws SQLException {
    for (int n = 0; n < rows; n++) {
      int pad = mix ? random.nextInt(600) : 500;
      s.executeUpdate(
          "INSERT INTO history(k, v, pad) VALUES("
              + row
              + ", "
              + value
              + ", REPEAT('y', "
              + pad
              + "))");
    }
  }
}
