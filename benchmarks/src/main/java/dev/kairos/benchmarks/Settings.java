package dev.kairos.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The "Settings" section: how each product was configured and what the figures mean. */
final class Settings {
  private Settings() {}

  static void describe(StringBuilder out, Options o) {
    out.append("## Settings\n\n")
        .append("- Every product runs its jobs on ")
        .append(o.workers())
        .append(" worker threads. Each (scenario, product, size) runs in a JVM of its own with a")
        .append(" fixed heap (`-Xms")
        .append(o.childHeap())
        .append(" -Xmx")
        .append(o.childHeap())
        .append("`): warm-up (throughput: full-size runs, at least one, for at least ")
        .append(Child.THROUGHPUT_WARM_UP.toSeconds())
        .append(" s, every product alike; lateness: one ")
        .append(o.warmup().toSeconds())
        .append(" s run), then ")
        .append(o.runs())
        .append(" measured runs, each over a fresh store.\n")
        .append("- **Kairos**: `Kairos.builder()` defaults (look-ahead 5 min, windows of 10,000,")
        .append(" misfire `fireOnce()` with a 1 s threshold); `new InMemoryStore()`,")
        .append(" `JdbcStore.h2(dir)` or `JdbcStore.builder().url(..)`, with their defaults")
        .append(" (completed jobs kept, 100 runs of history per job, pool of 8).\n")
        .append("- **ScheduledThreadPoolExecutor**: `schedule` / `scheduleAtFixedRate`; workers")
        .append(" held on a gate until \"start\" so that jobs queue first, as in the others.\n")
        .append("- **Quartz** 2.5.2: one JobDetail + SimpleTrigger per job; thread pool = workers;")
        .append(" `batchTriggerAcquisitionMaxCount` = workers, no fire-ahead window; misfire")
        .append(" threshold 60 s (default). JDBC: `JobStoreTX`, `StdJDBCDelegate` on H2 and")
        .append(" MariaDB, `PostgreSQLDelegate` on PostgreSQL, HikariCP pool of workers + 2, not")
        .append(" clustered; tables from the jar's `tables_h2.sql` / `tables_postgres.sql` /")
        .append(" `tables_mysql_innodb.sql`.\n")
        .append("- **db-scheduler** 16.7.1: threads = workers; polling interval ")
        .append(o.pollInterval().toMillis())
        .append(" ms (its default is 10 s); immediate execution on; PostgreSQL: lock-and-fetch")
        .append(" polling `pollUsingLockAndFetch(0.5, 1.0)`; H2 and MariaDB (no lock-and-fetch")
        .append(" support): its default fetch-and-lock-on-execute (0.5, 3.0); MariaDB with")
        .append(" `alwaysPersistTimestampInUTC()`. HikariCP pool of workers + 2.")
        .append(" Fixed rate = a custom task rescheduling itself at its execution time + period.")
        .append(" Its jar ships no DDL: the documented `scheduled_tasks` table is embedded")
        .append(" (for MariaDB, its MySQL schema).\n")
        .append("- **Stores**: H2 file databases under `")
        .append(o.dataDir())
        .append("` (deleted after each run), every product with the URL settings of")
        .append(" `JdbcStore.h2(dir)` (`WRITE_DELAY=0;MAX_COMPACT_TIME=0`: the same durability);")
        .append(" PostgreSQL `")
        .append(o.pgUrl())
        .append("`, a schema per run, dropped after it; MariaDB on the server of `")
        .append(o.mariaUrl())
        .append("`, a database per run, dropped after it (InnoDB, each commit flushed as the")
        .append(" server is configured, the same for every product). CPU figures are the")
        .append(" benchmark process's (all threads, JIT and GC, and embedded H2; 10 ms ticks);")
        .append(" the PostgreSQL and MariaDB servers' CPU is not included.\n\n");
  }

  /** The CPU model from /proc/cpuinfo, or the architecture where that is unavailable. */
  static String cpuModel() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
      return lines
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).strip())
          .findFirst()
          .orElse(System.getProperty("os.arch"));
    } catch (IOException | RuntimeException e) {
      return System.getProperty("os.arch");
    }
  }
}
