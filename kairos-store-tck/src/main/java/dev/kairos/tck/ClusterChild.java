package dev.kairos.tck;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.JobContext;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.jdbc.JdbcStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child JVM of {@link ClusterProcessContract}: one instance of a cluster over a database. Every run
 * inserts (job key, scheduled fire time, instance, recovery flag) into {@code <prefix>results},
 * whose primary key is the first two, over a pool of its own; a run that violates it is a recovery
 * (recorded in {@code <prefix>recoveries}, keyed the same way) or a duplicate (counted, and
 * recorded in {@code <prefix>duplicates}). Handler "slow" also prints "RUNNING key fire" after
 * recording and then sleeps, so the parent can kill the JVM mid-run.
 *
 * <p>Prints "READY id" once started; on a line "STOP" on standard input closes the scheduler
 * gracefully and prints "RESULT runs=n duplicates=n recoveries=n", then "DONE".
 *
 * <p>Arguments, as key=value: {@code store} (JDBC URL of the store), {@code user} (its user),
 * {@code results} (JDBC URL of the results pool), {@code resultsUser}, {@code resultsInit} (SQL run
 * on each results connection, may be empty), {@code prefix}, {@code id}, {@code lease} and {@code
 * skew} (ISO-8601), {@code slow} (how long handler "slow" sleeps, ISO-8601).
 */
public final class ClusterChild {
  private final HikariDataSource results;
  private final String prefix;
  private final String id;
  private final AtomicInteger runs = new AtomicInteger();
  private final AtomicInteger duplicates = new AtomicInteger();
  private final AtomicInteger recoveries = new AtomicInteger();

  private ClusterChild(HikariDataSource results, String prefix, String id) {
    this.results = results;
    this.prefix = prefix;
    this.id = id;
  }

  /**
   * Runs one instance; see the class comment for the arguments.
   *
   * @param args the arguments described in the class comment
   * @throws Exception if the instance fails; the child then exits with an error
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      a.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    String prefix = a.get("prefix");
    String id = a.get("id");
    Duration skew = Duration.parse(a.get("skew"));
    Duration slow = Duration.parse(a.get("slow"));
    try (HikariDataSource pool =
        pool(a.get("results"), a.get("resultsUser"), a.getOrDefault("resultsInit", ""))) {
      ClusterChild child = new ClusterChild(pool, prefix, id);
      JdbcStore store =
          JdbcStore.builder()
              .url(a.get("store"))
              .user(a.get("user"))
              .poolSize(4)
              .tablePrefix(prefix)
              .clustered(true)
              .build();
      Scheduler scheduler =
          Kairos.builder()
              .store(store)
              .instanceId(id)
              .workers(4)
              .clusterLease(Duration.parse(a.get("lease")))
              .clock(skew.isZero() ? TimeSource.system() : TimeSource.offset(skew))
              .gracePeriod(Duration.ofSeconds(5))
              .handler("record", child::record)
              .handler(
                  "slow",
                  ctx -> {
                    child.record(ctx);
                    System.out.println("RUNNING " + ctx.key() + " " + ctx.scheduledFireTime());
                    System.out.flush();
                    Thread.sleep(slow.toMillis());
                  })
              .build();
      scheduler.start();
      System.out.println("READY " + id);
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null && !line.equals("STOP"); ) {
        // wait for STOP
      }
      scheduler.close();
      System.out.println(
          "RESULT runs="
              + child.runs
              + " duplicates="
              + child.duplicates
              + " recoveries="
              + child.recoveries);
      System.out.println("DONE");
      System.out.flush();
    }
  }

  private static HikariDataSource pool(String url, String user, String init) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setMaximumPoolSize(3);
    c.setPoolName("results");
    // The results are the test's record, not the scheduler's state: they need not wait for the
    // disk (PostgreSQL: synchronous_commit = off; a run still inserts its row before it returns).
    if (!init.isEmpty()) {
      c.setConnectionInitSql(init);
    }
    return new HikariDataSource(c);
  }

  /** Records a run; retries while the database is unreachable (up to a minute). */
  private void record(JobContext ctx) throws InterruptedException {
    String fire = "(job_key, fire_time, instance, recovery) VALUES (?, ?, ?, ?)";
    for (int attempt = 0; ; attempt++) {
      try {
        if (insert("results", fire, ctx)) {
          runs.incrementAndGet();
        } else if (ctx.recovery() && insert("recoveries", fire, ctx)) {
          recoveries.incrementAndGet();
        } else {
          duplicates.incrementAndGet();
          insert("duplicates", fire, ctx);
          System.err.println(
              "DUPLICATE " + ctx.key() + " " + ctx.scheduledFireTime() + " on " + id);
        }
        return;
      } catch (SQLException e) {
        if (attempt >= 600) {
          throw new IllegalStateException("recording " + ctx.key() + " failed", e);
        }
        Thread.sleep(100);
      }
    }
  }

  /** Inserts the run into the table; false if its key is there already. */
  private boolean insert(String table, String columnsAndValues, JobContext ctx)
      throws SQLException {
    try (Connection c = results.getConnection();
        PreparedStatement p =
            c.prepareStatement("INSERT INTO " + prefix + table + " " + columnsAndValues)) {
      p.setString(1, ctx.key());
      p.setBigDecimal(2, seconds(ctx.scheduledFireTime()));
      p.setString(3, id);
      p.setBoolean(4, ctx.recovery());
      p.executeUpdate();
      return true;
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState()) || e.getErrorCode() == 1062) { // PostgreSQL, MariaDB
        return false;
      }
      throw e;
    }
  }

  /**
   * An instant as decimal epoch seconds, as the results tables hold it.
   *
   * @param t the instant
   * @return its epoch seconds, with the nanoseconds as the fraction
   */
  public static BigDecimal seconds(Instant t) {
    return BigDecimal.valueOf(t.getEpochSecond()).add(BigDecimal.valueOf(t.getNano(), 9));
  }
}
