package dev.kairos.benchmarks.soak;

import dev.kairos.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The soak harness: {@code java -jar kairos-benchmarks.jar soak [options]} (see {@link
 * SoakOptions#USAGE}). Runs real schedulers in child JVMs ({@link SoakChild}) over an H2 file or
 * PostgreSQL (several clustered instances, one optionally with a skewed clock), kills a child with
 * SIGKILL at random moments and restarts it, optionally freezes one (SIGSTOP/SIGCONT) for longer
 * than its lease, while API threads in every child race schedule/pause/resume/triggerNow/unschedule
 * against the runs. Every run and call goes to an independent ledger; at the end the {@link
 * Analyzer} prints a verdict and the exit status is 1 if any promise was broken.
 *
 * <p>{@code soak analyze DIR} analyzes the ledger of an earlier run again.
 */
public final class Soak {
  private final SoakOptions o;
  private final LedgerFile events;
  private final List<Child> children = new ArrayList<>();
  private String url;
  private String schema;
  private String database; // MariaDB: the run's own database
  private String pgBase; // the PostgreSQL database the run's schema is made in
  private String dbCluster; // --restart-db-every: the PostgreSQL cluster of the run's own

  /** One slot of the cluster: the current child JVM in it and its generation. */
  private static final class Child {
    final String slot;
    int generation = -1;
    Process process;
    String instance;

    Child(String slot) {
      this.slot = slot;
    }
  }

  private Soak(SoakOptions o) throws IOException {
    this.o = o;
    Files.createDirectories(o.dir());
    try (Stream<Path> old = Files.list(o.dir())) { // an earlier run's files in the same directory
      for (Path p : old.toList()) {
        String name = p.getFileName().toString();
        if (name.endsWith(".ledger") || name.startsWith("child-") || name.equals("verdict.txt")) {
          Files.delete(p);
        }
      }
    }
    this.events = new LedgerFile(o.dir().resolve("events.ledger"));
  }

  /** Runs a soak or analyzes one; exits 0 when the verdict passes, 1 when not, 2 on bad usage. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args));
  }

  /** As {@link #main}, returning the exit status. */
  public static int run(String[] args) throws Exception {
    List<String> a = List.of(args);
    if (!a.isEmpty() && a.get(0).equals("child")) {
      SoakChild.main(a.subList(1, a.size()).toArray(String[]::new));
      return 0;
    }
    if (!a.isEmpty() && a.get(0).equals("analyze") && a.size() == 2) {
      Path dir = Path.of(a.get(1));
      Ledger ledger = Ledger.read(dir);
      Verdict v = Analyzer.defaults().analyze(ledger, lostCommits(dir, ledger));
      System.out.print(v.render());
      return v.passed() ? 0 : 1;
    }
    if (!a.isEmpty() && a.get(0).equals("lost-commits") && a.size() == 2) {
      LostCommits.Report r = LostCommits.find(Path.of(a.get(1)));
      System.out.print(r.render());
      return r.losses().isEmpty() ? 0 : 1;
    }
    if (a.contains("--help")) {
      System.out.print(SoakOptions.USAGE);
      return 0;
    }
    SoakOptions o;
    try {
      o = SoakOptions.parse(a);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(SoakOptions.USAGE);
      return 2;
    }
    return new Soak(o).soak();
  }

  private int soak() throws Exception {
    System.out.printf(
        "soak: %s, %d instance(s)%s, %d s, SIGKILL every ~%d s%s, %d API threads on %d keys,"
            + " %d steady jobs, period %d ms; ledger in %s%n",
        o.store()
            + (o.restartDbEvery().isZero()
                ? ""
                : " (own cluster restarted every ~" + o.restartDbEvery().toSeconds() + " s)"),
        o.instances(),
        o.clustered() ? " clustered" + (o.skew().isZero() ? "" : ", s1 skewed " + o.skew()) : "",
        o.duration().toSeconds(),
        o.killEvery().toSeconds(),
        o.freezeEvery().isZero() ? "" : ", SIGSTOP every ~" + o.freezeEvery().toSeconds() + " s",
        o.apiThreads(),
        o.raceKeys(),
        o.steadyJobs(),
        o.period().toMillis(),
        o.dir().toAbsolutePath());
    prepareStore();
    try {
      Instant first = Instant.now().plusSeconds(8).truncatedTo(ChronoUnit.SECONDS);
      createJobs(first);
      for (int i = 0; i < o.instances(); i++) {
        Child c = new Child("s" + i);
        children.add(c);
        launch(c, first);
      }
      if (o.clustered()) {
        events.append("LEASE", o.lease().toNanos() / 1_000);
      }
      Instant horizon = first.plus(o.duration());
      faults(horizon, first);
      sleepUntil(horizon);
      events.append("HORIZON", LedgerFile.nowMicros());
      stopAll();
      return verdict();
    } finally {
      children.stream().filter(c -> c.process != null).forEach(c -> c.process.destroyForcibly());
      dropStore();
      events.close();
    }
  }

  private void prepareStore() throws Exception {
    String id = UUID.randomUUID().toString().substring(0, 8);
    if (o.store().equals("h2")) {
      url = o.dir().resolve("h2").toAbsolutePath().toString();
      return;
    }
    if (o.store().equals("mariadb")) {
      database = "soak_" + id;
      maria("CREATE DATABASE " + database);
      url = o.mariadbUrl() + (o.mariadbUrl().endsWith("/") ? "" : "/") + database;
      return;
    }
    pgBase = o.pgUrl();
    if (!o.restartDbEvery().isZero()) {
      pgBase = createDbCluster(id);
    }
    schema = "soak_" + id;
    pg("CREATE SCHEMA " + schema);
    url = pgBase + (pgBase.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  /**
   * A PostgreSQL cluster of this run's own, on a free port from 5540 (never the shared server's),
   * that {@code --restart-db-every} may stop and start: {@code pg_createcluster}, trust
   * authentication, started. Returns its URL. {@link #dropStore} drops it.
   */
  private String createDbCluster(String id) throws Exception {
    int port = 5540;
    while (!free(port)) {
      port++;
    }
    if (port == 5432) {
      throw new IllegalStateException("refusing the shared PostgreSQL port 5432");
    }
    dbCluster = "soak" + id.substring(0, 6);
    command(
        "pg_createcluster",
        pgVersion(),
        dbCluster,
        "-p",
        String.valueOf(port),
        "--",
        "--auth=trust");
    command("pg_ctlcluster", pgVersion(), dbCluster, "start");
    System.out.printf(
        "PostgreSQL cluster %s %s on port %d for this run%n", pgVersion(), dbCluster, port);
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  private static boolean free(int port) {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The installed PostgreSQL major version (the highest in /usr/lib/postgresql). */
  private static String pgVersion() throws IOException {
    try (Stream<Path> v = Files.list(Path.of("/usr/lib/postgresql"))) {
      return v.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d+"))
          .max(Comparator.comparingInt(Integer::parseInt))
          .orElseThrow(() -> new IllegalStateException("no PostgreSQL in /usr/lib/postgresql"));
    }
  }

  /** Runs a command, its output to the parent's; fails naming it unless it exits 0. */
  private static void command(String... cmd) throws IOException, InterruptedException {
    int status = new ProcessBuilder(cmd).inheritIO().start().waitFor();
    if (status != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: exit status " + status);
    }
  }

  /** Stops the run's own PostgreSQL cluster at once (immediate: as a crash), then starts it. */
  private void restartDb() throws Exception {
    events.append("DBDOWN", LedgerFile.nowMicros());
    System.out.printf("%s PostgreSQL %s stop (immediate)%n", Instant.now(), dbCluster);
    command("pg_ctlcluster", "-m", "immediate", pgVersion(), dbCluster, "stop");
    Thread.sleep(ThreadLocalRandom.current().nextLong(o.down().toMillis() + 1));
    command("pg_ctlcluster", pgVersion(), dbCluster, "start");
    events.append("DBUP", LedgerFile.nowMicros());
    System.out.printf("%s PostgreSQL %s started%n", Instant.now(), dbCluster);
  }

  private void dropStore() throws Exception {
    if (o.keep()) {
      System.out.println(
          "kept: "
              + (schema != null
                  ? "schema " + schema + (dbCluster != null ? " in cluster " + dbCluster : "")
                  : database != null ? "database " + database : url));
      if (dbCluster != null) {
        System.out.printf(
            "the cluster keeps running on its port; remove it with: pg_dropcluster --stop %s %s%n",
            pgVersion(), dbCluster);
      }
      return;
    }
    if (dbCluster != null) {
      command("pg_dropcluster", "--stop", pgVersion(), dbCluster);
    } else if (schema != null) {
      pg("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } else if (database != null) {
      maria("DROP DATABASE IF EXISTS " + database);
    } else if (Files.exists(Path.of(url))) {
      try (Stream<Path> files = Files.walk(Path.of(url))) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private void pg(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(pgBase, o.pgUser(), "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private void maria(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(o.mariadbUrl(), o.mariadbUser(), "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** Creates every job once, before any child starts, and writes its {@code JOB} line. */
  private void createJobs(Instant first) {
    SoakJobs jobs = new SoakJobs(o.period(), first, o.steadyJobs(), o.raceKeys());
    try (Scheduler s = SoakChild.scheduler(o, url, "creator", Duration.ZERO, ctx -> {})) {
      for (Ledger.Job j : jobs.all()) {
        // A slow machine may create a job after its first slot: it then starts at the next one.
        long firstSlot = s.schedule(jobs.spec(j)).next().map(LedgerFile::micros).orElse(j.first());
        events.append(
            "JOB",
            j.key(),
            j.period(),
            Math.max(j.first(), firstSlot),
            j.policy(),
            j.steady() ? "steady" : "race",
            j.threshold());
      }
    }
  }

  private void launch(Child c, Instant first) throws IOException {
    c.generation++;
    c.instance = c.slot + ".g" + c.generation;
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    cmd.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    cmd.add("-Dorg.slf4j.simpleLogger.log.dev.kairos.jdbc.internal.H2Compaction=info");
    // Log levels given to the soak go to its children too (e.g. TRACE for the engine's marks).
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("org.slf4j.simpleLogger.log.")) {
        cmd.add("-D" + name + "=" + System.getProperty(name));
      }
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Soak.class.getName()));
    cmd.add("child");
    cmd.addAll(o.childArgs());
    cmd.addAll(List.of("--instance", c.instance, "--url", url));
    cmd.addAll(List.of("--first", String.valueOf(LedgerFile.micros(first))));
    Path log = o.dir().resolve("child-" + c.instance + ".log");
    events.append("START", c.instance, LedgerFile.nowMicros());
    c.process =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /**
   * Until the quiet part: SIGKILLs a random child every ~{@code killEvery} and restarts it; freezes
   * one (SIGSTOP, then SIGCONT after lease + 3 s) every ~{@code freezeEvery}.
   */
  private void faults(Instant horizon, Instant first) throws Exception {
    Instant quietFrom = horizon.minus(o.quiet());
    Instant nextKill = after(Instant.now(), o.killEvery());
    Instant nextFreeze = after(Instant.now(), o.freezeEvery());
    Instant nextRestart = after(Instant.now(), o.restartDbEvery());
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (true) {
      boolean restart = nextRestart.isBefore(nextKill) && nextRestart.isBefore(nextFreeze);
      boolean kill = !restart && nextKill.isBefore(nextFreeze);
      Instant next = restart ? nextRestart : kill ? nextKill : nextFreeze;
      if (!next.isBefore(quietFrom)) {
        return;
      }
      sleepUntil(next);
      Child c = children.get(r.nextInt(children.size()));
      if (restart) {
        restartDb();
        nextRestart = after(Instant.now(), o.restartDbEvery());
      } else if (kill) {
        c.process.destroyForcibly(); // SIGKILL
        c.process.waitFor();
        events.append("KILL", c.instance, LedgerFile.nowMicros());
        System.out.printf("%s SIGKILL %s%n", Instant.now(), c.instance);
        keepKilledH2File(c.instance);
        Thread.sleep(r.nextLong(o.down().toMillis() + 1));
        launch(c, first);
        nextKill = after(Instant.now(), o.killEvery());
      } else {
        signal("STOP", c);
        events.append("FREEZE", c.instance, LedgerFile.nowMicros());
        System.out.printf("%s SIGSTOP %s%n", Instant.now(), c.instance);
        Thread.sleep(o.lease().plusSeconds(3).toMillis());
        events.append("THAW", c.instance, LedgerFile.nowMicros());
        signal("CONT", c);
        nextFreeze = after(Instant.now(), o.freezeEvery());
      }
    }
  }

  /**
   * With {@code -Dkairos.soak.keepH2Files=true} on an H2 soak, copies the database file as the
   * SIGKILL left it to {@code h2-killed/<instance>.mv.db}, before the restart opens (and recovers)
   * it: what H2 had written, to set beside what the next instance read ({@code soak lost-commits}).
   */
  private void keepKilledH2File(String instance) throws IOException {
    if (!o.store().equals("h2") || !Boolean.getBoolean("kairos.soak.keepH2Files")) {
      return;
    }
    Path kept = o.dir().resolve("h2-killed");
    Files.createDirectories(kept);
    Files.copy(o.dir().resolve("h2").resolve("kairos.mv.db"), kept.resolve(instance + ".mv.db"));
  }

  /** A random moment ½–1½ {@code mean} after {@code t}; far in the future for a zero mean. */
  private static Instant after(Instant t, Duration mean) {
    if (mean.isZero()) {
      return Instant.MAX;
    }
    long ms = mean.toMillis();
    return t.plusMillis(ThreadLocalRandom.current().nextLong(ms / 2, ms * 3 / 2 + 1));
  }

  private static void signal(String name, Child c) throws IOException, InterruptedException {
    String pid = String.valueOf(c.process.pid());
    int status = new ProcessBuilder("kill", "-" + name, pid).inheritIO().start().waitFor();
    if (status != 0) {
      throw new IllegalStateException("kill -" + name + " " + pid + " failed: " + status);
    }
  }

  private void stopAll() throws InterruptedException {
    for (Child c : children) {
      events.append("STOP", c.instance, LedgerFile.nowMicros());
      c.process.destroy(); // SIGTERM: the child closes its scheduler
    }
    for (Child c : children) {
      if (!c.process.waitFor(30, TimeUnit.SECONDS)) {
        System.out.println(c.instance + " did not stop within 30 s: SIGKILL");
        c.process.destroyForcibly().waitFor();
      }
    }
  }

  private int verdict() throws IOException {
    Ledger ledger = Ledger.read(o.dir());
    Verdict v = Analyzer.defaults().analyze(ledger, lostCommits(o.dir(), ledger));
    StringBuilder sb = new StringBuilder(v.render());
    sb.insert(0, logSummary());
    if (o.store().equals("h2")) {
      sb.insert(
          0,
          String.format(
              Locale.ROOT, "H2 files after the run: %.1f MB%n", size(Path.of(url)) / 1e6));
    }
    Files.writeString(o.dir().resolve("verdict.txt"), sb);
    System.out.print(sb);
    return v.passed() ? 0 : 1;
  }

  /**
   * The commits lost at the kills ({@link LostCommits}) when they can be known: one instance (one
   * slot) whose children logged at TRACE and was killed at least once; otherwise null.
   */
  static LostCommits.Report lostCommits(Path dir, Ledger ledger) throws IOException {
    long slots = ledger.lives().stream().map(l -> Ledger.slotOf(l.instance())).distinct().count();
    if (slots != 1) {
      return null;
    }
    LostCommits.Report r = LostCommits.find(dir);
    return r.restarts() > r.untraced() ? r : null;
  }

  /** Warnings, errors and deadlocks the children logged (reported, not judged). */
  private String logSummary() throws IOException {
    long warn = 0;
    long error = 0;
    long deadlock = 0;
    String firstDeadlock = null;
    List<String> compactions = new ArrayList<>();
    List<String> repairs = new ArrayList<>();
    try (Stream<Path> logs = Files.list(o.dir())) {
      for (Path p : logs.filter(f -> f.getFileName().toString().startsWith("child-")).toList()) {
        for (String line : Files.readAllLines(p)) {
          if (line.contains("compacted to")) { // H2Compaction at open
            compactions.add(line.substring(line.indexOf(": ") + 2).strip());
          }
          if (line.contains("a plain open would read version")) { // H2HeaderRepair at open
            repairs.add(p.getFileName() + ": " + line.substring(line.indexOf("H2 file")).strip());
          }
          warn += line.contains(" WARN ") ? 1 : 0;
          error += line.contains(" ERROR ") ? 1 : 0;
          // One per deadlock: the driver's exception, not the wrappers that quote it.
          if ((line.contains("PSQLException: ERROR: deadlock detected")
                  || line.contains("Deadlock found when trying to get lock"))
              && !line.contains("jdbi")) {
            deadlock++;
            firstDeadlock =
                firstDeadlock == null ? p.getFileName() + ": " + line.strip() : firstDeadlock;
          }
        }
      }
    }
    return String.format(
            Locale.ROOT,
            "child logs: %,d WARN, %,d ERROR lines, %d deadlocks detected%n",
            warn,
            error,
            deadlock)
        + (firstDeadlock == null ? "" : "    e.g. " + firstDeadlock + "\n")
        + (compactions.isEmpty()
            ? ""
            : "H2 file compacted at open "
                + compactions.size()
                + " time(s):\n    "
                + String.join("\n    ", compactions)
                + "\n")
        + (repairs.isEmpty()
            ? ""
            : "H2 file header repaired at open (it did not lead to the newest chunk) "
                + repairs.size()
                + " time(s) (the commits a plain open would drop kept):\n    "
                + String.join("\n    ", repairs)
                + "\n");
  }

  private static long size(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static void sleepUntil(Instant t) throws InterruptedException {
    long ms = Duration.between(Instant.now(), t).toMillis();
    if (ms > 0) {
      Thread.sleep(ms);
    }
  }
}
