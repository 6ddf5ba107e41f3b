package dev.kairos.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The runner's command line, validated at once.
 *
 * <pre>
 * java -jar kairos-benchmarks.jar &lt;scenario&gt;[,&lt;scenario&gt;...] [--jobs N[,N...]] [--workers N]
 *     [--runs N] [--products a,b,c] [--skip a,b] [--out report.md] [--duration S] [--settle S]
 *     [--warmup S] [--poll-ms N] [--pg-url URL] [--pg-user U] [--pg-password P]
 *     [--maria-url URL] [--maria-user U] [--maria-password P] [--data-dir DIR]
 *     [--timeout S] [--child-heap SIZE]
 * </pre>
 *
 * @param scenarios what to run, in order
 * @param jobs job counts overriding each scenario's defaults; empty for the defaults
 * @param dbJobs throughput job counts of persistent products (one-shots in a database take
 *     milliseconds each); empty for {@code jobs}
 * @param workers worker threads of every product
 * @param runs measured runs per figure, after one warm-up run
 * @param products product ids; empty for every product available here
 * @param skip product ids left out of {@code products} (or of every product)
 * @param out the markdown report
 * @param duration measured window of the lateness and growth scenarios
 * @param settle fires scheduled in this first part of a lateness run are not measured
 * @param warmup length of the lateness warm-up run
 * @param pollInterval db-scheduler's polling interval
 * @param pgUrl PostgreSQL JDBC URL (each run creates and drops its own schema there)
 * @param mariaUrl MariaDB JDBC URL of an existing database (each run creates and drops a database
 *     of its own on that server)
 * @param dataDir where H2 files are created (and deleted after each run)
 * @param timeout longest wait for one run's executions
 * @param childHeap -Xmx of each forked measuring JVM
 * @param child internal: this JVM measures one product and writes {@code resultFile}
 */
record Options(
    List<Scenario> scenarios,
    List<Integer> jobs,
    List<Integer> dbJobs,
    int workers,
    int runs,
    List<String> products,
    List<String> skip,
    Path out,
    Duration duration,
    Duration settle,
    Duration warmup,
    Duration pollInterval,
    String pgUrl,
    String pgUser,
    String pgPassword,
    String mariaUrl,
    String mariaUser,
    String mariaPassword,
    Path dataDir,
    Duration timeout,
    String childHeap,
    boolean child,
    Path resultFile) {

  static final String USAGE =
      """
      usage: java -jar kairos-benchmarks.jar <scenario>[,<scenario>...] [options]
        scenarios: throughput, lateness, scale, growth, micro, all
        --jobs N[,N...]      job counts (defaults: throughput 10000,100000; lateness 1000;
                             scale 1000000; growth 1000,10000,100000)
        --db-jobs N[,N...]   throughput job counts of the database-backed products
                             (default: those of --jobs)
        --workers N          worker threads of every product (default 4)
        --runs N             measured runs per figure after one warm-up (default 3)
        --products a,b,c     any of %s (default: all available)
        --skip a,b           products not to run (e.g. --skip quartz-pg,quartz-maria)
        --out FILE           markdown report (default benchmarks/REPORT.md)
        --duration S         lateness/growth measured seconds (default 20)
        --settle S           lateness/growth unmeasured seconds before the window (default 3)
        --warmup S           lateness/growth warm-up run seconds (default 5)
        --poll-ms N          db-scheduler polling interval (default 100)
        --pg-url URL         default jdbc:postgresql://127.0.0.1:5432/test
        --pg-user U          default postgres
        --pg-password P      default empty
        --maria-url URL      default jdbc:mariadb://127.0.0.1:3306/test (each run makes and
                             drops a database of its own on that server)
        --maria-user U       default root
        --maria-password P   default empty
        --data-dir DIR       H2 files (default target/bench-data)
        --timeout S          longest wait for one run (default 600)
        --child-heap SIZE    -Xmx of the measuring JVMs (default 6g)
      """
          .formatted(String.join(", ", Product.ids()));

  static Options parse(String[] args) {
    if (args.length == 0 || args[0].startsWith("--")) {
      throw new IllegalArgumentException("no scenario given");
    }
    List<Scenario> scenarios = new ArrayList<>();
    for (String s : args[0].split(",")) {
      scenarios.addAll(Scenario.parse(s));
    }
    Builder b = new Builder(scenarios);
    for (int i = 1; i < args.length; i++) {
      String name = args[i];
      if (name.equals("--child")) {
        b.child = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + name + " needs a value");
      }
      b.set(name, args[++i]);
    }
    return b.build();
  }

  /** The arguments that make a child JVM measure {@code product} at {@code jobs}. */
  List<String> childArgs(Scenario scenario, String product, int jobs, Path result) {
    return List.of(
        scenario.id(),
        "--child",
        "--products",
        product,
        "--jobs",
        Integer.toString(jobs),
        "--workers",
        Integer.toString(workers),
        "--runs",
        Integer.toString(runs),
        "--duration",
        Long.toString(duration.toSeconds()),
        "--settle",
        Long.toString(settle.toSeconds()),
        "--warmup",
        Long.toString(warmup.toSeconds()),
        "--poll-ms",
        Long.toString(pollInterval.toMillis()),
        "--pg-url",
        pgUrl,
        "--pg-user",
        pgUser,
        "--pg-password",
        pgPassword,
        "--maria-url",
        mariaUrl,
        "--maria-user",
        mariaUser,
        "--maria-password",
        mariaPassword,
        "--data-dir",
        dataDir.toString(),
        "--timeout",
        Long.toString(timeout.toSeconds()),
        "--result",
        result.toString());
  }

  /** The job counts to measure {@code scenario} at. */
  List<Integer> jobsFor(Scenario scenario) {
    return jobs.isEmpty() ? scenario.defaultJobs() : jobs;
  }

  /** The job counts to measure {@code product} at in {@code scenario}. */
  List<Integer> jobsFor(Scenario scenario, Product product) {
    if (scenario == Scenario.THROUGHPUT && product.persistent() && !dbJobs.isEmpty()) {
      return dbJobs;
    }
    return jobsFor(scenario);
  }

  private static final class Builder {
    final List<Scenario> scenarios;
    List<Integer> jobs = List.of();
    List<Integer> dbJobs = List.of();
    int workers = 4;
    int runs = 3;
    List<String> products = List.of();
    List<String> skip = List.of();
    Path out = Path.of("benchmarks", "REPORT.md");
    Duration duration = Duration.ofSeconds(20);
    Duration settle = Duration.ofSeconds(3);
    Duration warmup = Duration.ofSeconds(5);
    Duration poll = Duration.ofMillis(100);
    String pgUrl = "jdbc:postgresql://127.0.0.1:5432/test";
    String pgUser = "postgres";
    String pgPassword = "";
    String mariaUrl = "jdbc:mariadb://127.0.0.1:3306/test";
    String mariaUser = "root";
    String mariaPassword = "";
    Path dataDir = Path.of("target", "bench-data");
    Duration timeout = Duration.ofSeconds(600);
    String childHeap = "6g";
    boolean child;
    Path result;

    Builder(List<Scenario> scenarios) {
      this.scenarios = scenarios;
    }

    void set(String name, String value) {
      switch (name) {
        case "--jobs" -> jobs = counts(name, value);
        case "--db-jobs" -> dbJobs = counts(name, value);
        case "--workers" -> workers = positive(name, value);
        case "--runs" -> runs = positive(name, value);
        case "--products" -> products = products(value);
        case "--skip" -> skip = products(value);
        case "--out" -> out = Path.of(value);
        case "--duration" -> duration = Duration.ofSeconds(positive(name, value));
        case "--settle" -> settle = Duration.ofSeconds(positive(name, value));
        case "--warmup" -> warmup = Duration.ofSeconds(positive(name, value));
        case "--poll-ms" -> poll = Duration.ofMillis(positive(name, value));
        case "--pg-url" -> pgUrl = value;
        case "--pg-user" -> pgUser = value;
        case "--pg-password" -> pgPassword = value;
        case "--maria-url" -> mariaUrl = value;
        case "--maria-user" -> mariaUser = value;
        case "--maria-password" -> mariaPassword = value;
        case "--data-dir" -> dataDir = Path.of(value);
        case "--timeout" -> timeout = Duration.ofSeconds(positive(name, value));
        case "--child-heap" -> childHeap = value;
        case "--result" -> result = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + name);
      }
    }

    Options build() {
      if (child && (result == null || products.size() != 1 || jobs.size() != 1)) {
        throw new IllegalArgumentException("--child needs --result, one product and one job count");
      }
      return new Options(
          List.copyOf(scenarios),
          jobs,
          dbJobs,
          workers,
          runs,
          products,
          skip,
          out,
          duration,
          settle,
          warmup,
          poll,
          pgUrl,
          pgUser,
          pgPassword,
          mariaUrl,
          mariaUser,
          mariaPassword,
          dataDir,
          timeout,
          childHeap,
          child,
          result);
    }

    private static List<String> products(String value) {
      List<String> ids =
          Arrays.stream(value.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).toList();
      for (String id : ids) {
        Product.byId(id); // throws naming the unknown id
      }
      return ids;
    }

    private static List<Integer> counts(String name, String value) {
      return Arrays.stream(value.split(",")).map(v -> positive(name, v)).toList();
    }

    private static int positive(String name, String value) {
      int n;
      try {
        n = Integer.parseInt(value.replace("_", ""));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " needs a number: '" + value + "'", e);
      }
      if (n < 1) {
        throw new IllegalArgumentException(name + " must be positive: " + n);
      }
      return n;
    }
  }
}
