package dev.kairos.benchmarks;

import dev.kairos.JobSpec;
import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Issue 3/6's scale claim on PostgreSQL: inserts N jobs due a day ahead (by SQL, copies of one job
 * scheduled through the API), then starts a fresh scheduler over the store with one job due now and
 * prints how long after {@code start()} it fired and the heap it added. The schema is dropped
 * after.
 *
 * <pre>
 * java -Xmx2g -cp benchmarks/target/kairos-benchmarks.jar dev.kairos.benchmarks.MillionJobsStartup 1000000
 * </pre>
 */
public final class MillionJobsStartup {
  private MillionJobsStartup() {}

  /** Runs it; the argument is the number of stored jobs. */
  public static void main(String[] a) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:5432/test";
    String schema = "kairos_million";
    int n = Integer.parseInt(a[0]);
    try (Connection c = DriverManager.getConnection(url, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      s.execute("CREATE SCHEMA " + schema);
    }
    String su = url + "?currentSchema=" + schema;
    // One template job through the API, then n copies due a day ahead by SQL.
    JdbcStore st = JdbcStore.builder().url(su).user("postgres").build();
    var sched = Kairos.builder().store(st).handler("h", ctx -> {}).build();
    sched.schedule(
        JobSpec.named("template")
            .handler("h")
            .fixedRate(Duration.ofDays(1))
            .startAt(Instant.now().plus(Duration.ofDays(1))));
    sched.close();
    long t0 = System.nanoTime();
    try (Connection c = DriverManager.getConnection(su, "postgres", "");
        Statement s = c.createStatement()) {
      var rs =
          s.executeQuery(
              "SELECT string_agg(column_name, ',') FROM information_schema.columns WHERE table_schema='"
                  + schema
                  + "' AND table_name='kairos_jobs' AND column_name <> 'job_key'");
      rs.next();
      String cols = rs.getString(1);
      s.execute(
          "INSERT INTO kairos_jobs (job_key,"
              + cols
              + ") SELECT 'j' || g,"
              + cols.replace("change_seq", "nextval('kairos_change_seq')")
              + " FROM kairos_jobs, generate_series(1,"
              + n
              + ") g WHERE job_key='template'");
      s.execute("ANALYZE kairos_jobs");
    }
    System.out.printf(
        "inserted %d jobs by SQL in %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
    Runtime rt = Runtime.getRuntime();
    System.gc();
    Thread.sleep(200);
    System.gc();
    long base = rt.totalMemory() - rt.freeMemory();
    CountDownLatch fired = new CountDownLatch(1);
    JdbcStore st2 = JdbcStore.builder().url(su).user("postgres").build();
    var s2 = Kairos.builder().store(st2).handler("h", ctx -> fired.countDown()).build();
    s2.schedule(JobSpec.named("due-now").handler("h").at(Instant.now()));
    long start = System.nanoTime();
    s2.start();
    boolean ok = fired.await(30, TimeUnit.SECONDS);
    long firstMs = (System.nanoTime() - start) / 1_000_000;
    System.gc();
    Thread.sleep(200);
    System.gc();
    long heap = rt.totalMemory() - rt.freeMemory();
    System.out.printf(
        "first due job fired %s %d ms after start(); heap after GC %.1f MB above the baseline (%.1f MB before start)%n",
        ok ? "" : "NOT", firstMs, (heap - base) / 1e6, base / 1e6);
    s2.close();
    try (Connection c = DriverManager.getConnection(url, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA " + schema + " CASCADE");
    }
  }
}
