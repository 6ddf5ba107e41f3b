package dev.kairos.benchmarks.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The soak's independent record of what happened, read back from the append-only {@code *.ledger}
 * files of one run directory: the jobs and their timetables (written by the parent), each
 * instance's life (started, killed, stopped: parent), every run as its handler saw it and every API
 * call with the real time it began and returned (children). Nothing here comes from Kairos's own
 * tables or history.
 *
 * <p>One line per fact, tab-separated, times in epoch microseconds of the machine's real clock:
 *
 * <pre>
 * JOB      key  periodMicros  firstSlotMicros  CATCH_UP|FIRE_ONCE|SKIP  steady|race  thresholdMicros
 * START    instance  micros          (the parent is about to launch it)
 * KILL     instance  micros          (SIGKILL delivered and the process gone)
 * STOP     instance  micros          (asked to stop gracefully)
 * FREEZE   instance  micros          (SIGSTOP delivered)
 * THAW     instance  micros          (SIGCONT about to be delivered)
 * HORIZON  micros                    (faults and checks end here)
 * LEASE    micros                    (clustered runs: the cluster lease the children use)
 * DBDOWN   micros                    (--restart-db-every: the run's database cluster stopping)
 * DBUP     micros                    (... and started again)
 * RUN      instance  key  scheduled  start  engineStart  attempt  missedFires  recovery
 * CALL     instance  id  key  op  begin
 * DONE     instance  id  end  result(true|false|error)
 * </pre>
 *
 * A line cut short by a SIGKILL is counted as malformed and skipped.
 */
record Ledger(
    List<Job> jobs,
    List<Run> runs,
    List<Call> calls,
    List<Life> lives,
    List<Freeze> freezes,
    long horizon,
    long lease,
    int malformed) {

  /** A sentinel end time for a call that never returned (its instance died during it). */
  static final long NEVER = Long.MAX_VALUE;

  /** A job's misfire policy, as far as the analyzer's slot accounting needs it. */
  enum Policy {
    CATCH_UP,
    FIRE_ONCE,
    SKIP
  }

  /** The API calls the race threads make. */
  enum Op {
    SCHEDULE,
    PAUSE,
    RESUME,
    TRIGGER,
    UNSCHEDULE
  }

  /**
   * A fixed-rate job: slots at {@code first + k * period}. Steady jobs are never touched by the
   * API, so every slot is accounted for; race jobs are, so only duplicates, early runs and runs
   * after pause are checked on them. {@code threshold} is the misfire threshold (µs).
   */
  record Job(String key, long period, long first, Policy policy, boolean steady, long threshold) {
    boolean isSlot(long scheduled) {
      return scheduled >= first && (scheduled - first) % period == 0;
    }
  }

  /**
   * One run, written by the handler as its first act.
   *
   * @param start the handler's own reading of the real clock
   * @param engineStart {@code JobContext.actualStart()} corrected by the instance's clock skew
   */
  record Run(
      String instance,
      String key,
      long scheduled,
      long start,
      long engineStart,
      int attempt,
      int missed,
      boolean recovery) {}

  /** One API call: {@code end} is {@link #NEVER} when it did not return. */
  record Call(String instance, String key, Op op, long begin, long end, boolean result) {}

  /**
   * One instance (one child JVM) from launch to death: {@code end} is the kill or stop time, {@link
   * #NEVER} if neither was recorded.
   */
  record Life(String instance, String slot, long start, long end, boolean killed) {}

  /** One SIGSTOP..SIGCONT of an instance; {@code to} is {@link #NEVER} if it was not thawed. */
  record Freeze(String instance, long from, long to) {}

  /** Reads every {@code *.ledger} file of {@code dir}. */
  static Ledger read(Path dir) {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".ledger")).sorted().toList()) {
        lines.addAll(Files.readAllLines(f));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return parse(lines);
  }

  /** Parses ledger lines in any order. */
  static Ledger parse(List<String> lines) {
    Parser p = new Parser();
    lines.forEach(p::line);
    return p.ledger();
  }

  /** Slot name of an instance name {@code slot.gN}. */
  static String slotOf(String instance) {
    int dot = instance.lastIndexOf('.');
    return dot < 0 ? instance : instance.substring(0, dot);
  }

  private static final class Parser {
    private final List<Job> jobs = new ArrayList<>();
    private final List<Run> runs = new ArrayList<>();
    private final Map<String, String[]> begun = new HashMap<>();
    private final Map<String, String[]> done = new HashMap<>();
    private final Map<String, long[]> lives = new HashMap<>(); // start, end, killed
    private final Map<String, long[]> freezes = new HashMap<>(); // instance/n -> from, to
    private final Map<String, Integer> frozen = new HashMap<>(); // instance -> freezes so far
    private long horizon = NEVER;
    private long lease = NEVER;
    private int malformed;

    void line(String line) {
      if (line.isBlank()) {
        return;
      }
      String[] f = line.split("\t", -1);
      try {
        switch (f[0]) {
          case "JOB" -> jobs.add(job(f));
          case "RUN" -> runs.add(run(f));
          case "CALL" -> put(begun, f, 6, f[1] + "/" + f[2]);
          case "DONE" -> put(done, f, 5, f[1] + "/" + f[2]);
          case "START" -> life(f[1])[0] = Long.parseLong(f[2]);
          case "KILL" -> {
            long[] l = life(f[1]);
            l[1] = Long.parseLong(f[2]);
            l[2] = 1;
          }
          case "STOP" -> life(f[1])[1] = Math.min(life(f[1])[1], Long.parseLong(f[2]));
          case "FREEZE" -> {
            int n = frozen.merge(f[1], 1, Integer::sum);
            freezes.put(f[1] + "/" + n, new long[] {Long.parseLong(f[2]), NEVER});
          }
          case "THAW" -> freezes.get(f[1] + "/" + frozen.get(f[1]))[1] = Long.parseLong(f[2]);
          case "HORIZON" -> horizon = Long.parseLong(f[1]);
          case "LEASE" -> lease = Long.parseLong(f[1]);
          case "DBDOWN", "DBUP" -> Long.parseLong(f[1]); // reported by the parent, not judged
          default -> malformed++;
        }
      } catch (RuntimeException e) {
        malformed++;
      }
    }

    private static Job job(String[] f) {
      return new Job(
          f[1],
          Long.parseLong(f[2]),
          Long.parseLong(f[3]),
          Policy.valueOf(f[4]),
          f[5].equals("steady"),
          Long.parseLong(f[6]));
    }

    private static Run run(String[] f) {
      if (f.length != 9) {
        throw new IllegalArgumentException("RUN needs 9 fields");
      }
      return new Run(
          f[1],
          f[2],
          Long.parseLong(f[3]),
          Long.parseLong(f[4]),
          Long.parseLong(f[5]),
          Integer.parseInt(f[6]),
          Integer.parseInt(f[7]),
          Boolean.parseBoolean(f[8]));
    }

    private void put(Map<String, String[]> into, String[] f, int fields, String id) {
      if (f.length != fields) {
        throw new IllegalArgumentException(f[0] + " needs " + fields + " fields");
      }
      Long.parseLong(f[f.length - (f[0].equals("CALL") ? 1 : 2)]);
      into.put(id, f);
    }

    private long[] life(String instance) {
      return lives.computeIfAbsent(instance, k -> new long[] {NEVER, NEVER, 0});
    }

    Ledger ledger() {
      List<Call> calls = new ArrayList<>();
      begun.forEach(
          (id, b) -> {
            String[] d = done.get(id);
            long end = d == null ? NEVER : Long.parseLong(d[3]);
            boolean result = d != null && d[4].equals("true");
            calls.add(new Call(b[1], b[3], Op.valueOf(b[4]), Long.parseLong(b[5]), end, result));
          });
      List<Life> l = new ArrayList<>();
      lives.forEach((k, v) -> l.add(new Life(k, slotOf(k), v[0], v[1], v[2] == 1)));
      List<Freeze> fz = new ArrayList<>();
      freezes.forEach((k, v) -> fz.add(new Freeze(k.substring(0, k.lastIndexOf('/')), v[0], v[1])));
      return new Ledger(jobs, runs, calls, l, fz, horizon, lease, malformed);
    }
  }
}
