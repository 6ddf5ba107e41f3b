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
      Verdict v = Analyzer.defaults().analyze(Ledger.read(Path.of(a.get(1))));
      System.out.print(v.render());
      return v.passed() ? 0 : 1;
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
        o.store(),
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

  private void prepareStore() throws SQLException {
    if (o.store().equals("h2")) {
      url = o.dir().resolve("h2").toAbsolutePath().toString();
      return;
    }
    schema = "soak_" + UUID.randomUUID().toString().substring(0, 8);
    pg("CREATE SCHEMA " + schema);
    url = o.pgUrl() + (o.pgUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  private void dropStore() throws IOException, SQLException {
    if (o.keep()) {
      System.out.println("kept: " + (schema != null ? "schema " + schema : url));
      return;
    }
    if (schema != null) {
      pg("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } else if (Files.exists(Path.of(url))) {
      try (Stream<Path> files = Files.walk(Path.of(url))) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private void pg(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(o.pgUrl(), o.pgUser(), "");
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
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (true) {
      boolean kill = nextKill.isBefore(nextFreeze);
      Instant next = kill ? nextKill : nextFreeze;
      if (!next.isBefore(quietFrom)) {
        return;
      }
      sleepUntil(next);
      Child c = children.get(r.nextInt(children.size()));
      if (kill) {
        c.process.destroyForcibly(); // SIGKILL
        c.process.waitFor();
        events.append("KILL", c.instance, LedgerFile.nowMicros());
        System.out.printf("%s SIGKILL %s%n", Instant.now(), c.instance);
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
    Verdict v = Analyzer.defaults().analyze(Ledger.read(o.dir()));
    StringBuilder sb = new StringBuilder(v.render());
    sb.insert(0, logSummary());
    if (schema == null) {
      sb.insert(
          0,
          String.format(
              Locale.ROOT, "H2 files after the run: %.1f MB%n", size(Path.of(url)) / 1e6));
    }
    Files.writeString(o.dir().resolve("verdict.txt"), sb);
    System.out.print(sb);
    return v.passed() ? 0 : 1;
  }

  /** Warnings, errors and deadlocks the children logged (reported, not judged). */
  private String logSummary() throws IOException {
    long warn = 0;
    long error = 0;
    long deadlock = 0;
    String firstDeadlock = null;
    try (Stream<Path> logs = Files.list(o.dir())) {
      for (Path p : logs.filter(f -> f.getFileName().toString().startsWith("child-")).toList()) {
        for (String line : Files.readAllLines(p)) {
          warn += line.contains(" WARN ") ? 1 : 0;
          error += line.contains(" ERROR ") ? 1 : 0;
          // One per deadlock: the driver's exception, not the wrappers that quote it.
          if (line.contains("PSQLException: ERROR: deadlock detected") && !line.contains("jdbi")) {
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
        + (firstDeadlock == null ? "" : "    e.g. " + firstDeadlock + "\n");
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
