package dev.kairos.benchmarks.soak;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The soak's command line, validated at once; the parent hands the same options to each child.
 *
 * @param store {@code h2} (an embedded file, one instance at a time), {@code postgres} or {@code
 *     mariadb}
 * @param instances child JVMs running at once; more than one needs PostgreSQL or MariaDB and runs
 *     clustered
 * @param duration from the first slot to the horizon, when faults stop and the children are stopped
 * @param killEvery mean interval between two SIGKILLs (uniform in [½, 1½] of it); zero for none
 * @param freezeEvery mean interval between two SIGSTOPs (each held for lease + 3 s); zero for none
 * @param down longest pause between a kill and the restart (uniform in [0, down])
 * @param quiet no kill in this last part of the run, so the last restart can catch up
 * @param apiThreads threads per child calling schedule/pause/resume/triggerNow/unschedule
 * @param apiPause pause between two calls of one API thread
 * @param raceKeys jobs the API threads hammer
 * @param steadyJobs jobs nobody touches, whose every slot is accounted for
 * @param period the fixed rate of every job
 * @param workers worker threads per child
 * @param skew the clock offset of child {@code s1} (cluster mode only)
 * @param lease the cluster lease
 * @param dir the run directory: ledgers, child logs, the verdict, the H2 files
 * @param pgUrl the PostgreSQL database in which each run creates and drops a schema
 * @param pgUser its user
 * @param keep keep the H2 files, the PostgreSQL schema or the MariaDB database
 * @param restartDbEvery PostgreSQL only: mean interval between restarts of a PostgreSQL cluster of
 *     the run's own (made on another port, dropped at the end); zero for none (the given server)
 * @param mariadbUrl the MariaDB server in which each run creates and drops a database
 * @param mariadbUser its user
 */
record SoakOptions(
    String store,
    int instances,
    Duration duration,
    Duration killEvery,
    Duration freezeEvery,
    Duration down,
    Duration quiet,
    int apiThreads,
    Duration apiPause,
    int raceKeys,
    int steadyJobs,
    Duration period,
    int workers,
    Duration skew,
    Duration lease,
    Path dir,
    String pgUrl,
    String pgUser,
    boolean keep,
    Duration restartDbEvery,
    String mariadbUrl,
    String mariadbUser) {

  static final String USAGE =
      """
      usage: java -jar kairos-benchmarks.jar soak [options]
             java -jar kairos-benchmarks.jar soak analyze DIR
             java -jar kairos-benchmarks.jar soak lost-commits DIR   (after a run whose
               children logged TRACE: -Dorg.slf4j.simpleLogger.log.dev.kairos.engine=trace
               -Dorg.slf4j.simpleLogger.log.dev.kairos.jdbc=trace before -jar)
        --store h2|postgres|mariadb   default h2 (an embedded file)
        --instances N         child JVMs at once; N > 1 needs postgres or mariadb,
                              clustered (default 1)
        --seconds S | --minutes M   length of the run (default 120 s)
        --kill-every S        mean seconds between SIGKILLs; 0 for none (default 20)
        --freeze-every S      mean seconds between SIGSTOPs of a child, each held for
                              lease + 3 s; 0 for none (default 0)
        --down-ms N           longest pause before a killed child restarts (default 1000)
        --quiet S             no kill in the last S seconds (default 15; clustered: lease + 15)
        --api-threads N       API race threads per child (default 4)
        --api-pause-ms N      pause between two calls of one thread (default 2)
        --race-keys N         jobs the API threads hammer (default 12)
        --steady-jobs N       jobs nobody touches: every slot accounted for (default 24)
        --period-ms N         fixed rate of every job (default 1000)
        --workers N           workers per child (default 8)
        --skew-ms N           clock offset of child s1, clustered only (default 0)
        --lease-s N           cluster lease (default 6)
        --dir DIR             run directory (default target/soak/<store>-<time>)
        --pg-url URL          default jdbc:postgresql://127.0.0.1:5432/test
        --pg-user U           default postgres
        --restart-db-every S  postgres only: mean seconds between restarts of a PostgreSQL
                              cluster made for the run on another port (pg_createcluster,
                              dropped at the end; needs root); 0 for none (default 0)
        --mariadb-url URL     default jdbc:mariadb://127.0.0.1:3306/ (a database is made per run)
        --mariadb-user U      default root
        --keep                keep the H2 files / PostgreSQL schema / MariaDB database
      """;

  /** True when the children share a clustered PostgreSQL or MariaDB store. */
  boolean clustered() {
    return instances > 1;
  }

  static SoakOptions parse(List<String> args) {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String k = args.get(i);
      if (!k.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument: " + k);
      }
      if (k.equals("--keep")) {
        a.put(k, "true");
      } else if (i + 1 < args.size()) {
        a.put(k, args.get(++i));
      } else {
        throw new IllegalArgumentException(k + " needs a value");
      }
    }
    String store = text(a, "--store", "h2");
    int instances = integer(a, "--instances", 1, 1);
    if (!store.equals("h2") && !store.equals("postgres") && !store.equals("mariadb")) {
      throw new IllegalArgumentException("--store must be h2, postgres or mariadb: " + store);
    }
    if (instances > 1 && store.equals("h2")) {
      throw new IllegalArgumentException("several instances need --store postgres or mariadb");
    }
    Duration restartDbEvery = Duration.ofSeconds(integer(a, "--restart-db-every", 0, 0));
    if (!restartDbEvery.isZero() && !store.equals("postgres")) {
      throw new IllegalArgumentException("--restart-db-every needs --store postgres: " + store);
    }
    Duration duration = Duration.ofSeconds(integer(a, "--seconds", 120, 10));
    if (a.containsKey("--minutes")) // --minutes wins over --seconds
    {
      duration = Duration.ofMinutes(integer(a, "--minutes", 2, 1));
    }
    Duration lease = Duration.ofSeconds(integer(a, "--lease-s", 6, 1));
    Duration quiet =
        Duration.ofSeconds(
            integer(a, "--quiet", instances > 1 ? (int) lease.toSeconds() + 15 : 15, 0));
    String dir =
        text(
            a,
            "--dir",
            "target/soak/"
                + store
                + "-"
                + LocalDateTime.now().withNano(0).toString().replace(':', '-'));
    SoakOptions o =
        new SoakOptions(
            store,
            instances,
            duration,
            Duration.ofSeconds(integer(a, "--kill-every", 20, 0)),
            Duration.ofSeconds(integer(a, "--freeze-every", 0, 0)),
            Duration.ofMillis(integer(a, "--down-ms", 1000, 0)),
            quiet,
            integer(a, "--api-threads", 4, 0),
            Duration.ofMillis(integer(a, "--api-pause-ms", 2, 0)),
            integer(a, "--race-keys", 12, 1),
            integer(a, "--steady-jobs", 24, 0),
            Duration.ofMillis(integer(a, "--period-ms", 1000, 10)),
            integer(a, "--workers", 8, 1),
            Duration.ofMillis(integer(a, "--skew-ms", 0, Integer.MIN_VALUE)),
            lease,
            Path.of(dir),
            text(a, "--pg-url", "jdbc:postgresql://127.0.0.1:5432/test"),
            text(a, "--pg-user", "postgres"),
            a.remove("--keep") != null,
            restartDbEvery,
            text(a, "--mariadb-url", "jdbc:mariadb://127.0.0.1:3306/"),
            text(a, "--mariadb-user", "root"));
    if (!a.isEmpty()) {
      throw new IllegalArgumentException("unknown option(s): " + a.keySet());
    }
    return o;
  }

  private static String text(Map<String, String> a, String key, String otherwise) {
    String v = a.remove(key);
    return v == null ? otherwise : v;
  }

  private static int integer(Map<String, String> a, String key, int otherwise, int min) {
    String v = a.remove(key);
    if (v == null) {
      return otherwise;
    }
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " needs a number: " + v, e);
    }
    if (n < min) {
      throw new IllegalArgumentException(key + " must be at least " + min + ": " + v);
    }
    return n;
  }

  /** These options as a child's command line (with the store URL resolved by the parent). */
  List<String> childArgs() {
    List<String> c = new ArrayList<>();
    c.addAll(List.of("--store", store, "--instances", String.valueOf(instances)));
    c.addAll(List.of("--api-threads", String.valueOf(apiThreads)));
    c.addAll(List.of("--api-pause-ms", String.valueOf(apiPause.toMillis())));
    c.addAll(List.of("--race-keys", String.valueOf(raceKeys)));
    c.addAll(List.of("--steady-jobs", String.valueOf(steadyJobs)));
    c.addAll(List.of("--period-ms", String.valueOf(period.toMillis())));
    c.addAll(List.of("--workers", String.valueOf(workers)));
    c.addAll(List.of("--skew-ms", String.valueOf(skew.toMillis())));
    c.addAll(List.of("--lease-s", String.valueOf(lease.toSeconds())));
    c.addAll(List.of("--dir", dir.toString(), "--pg-url", pgUrl, "--pg-user", pgUser));
    c.addAll(List.of("--mariadb-url", mariadbUrl, "--mariadb-user", mariadbUser));
    return c;
  }
}
