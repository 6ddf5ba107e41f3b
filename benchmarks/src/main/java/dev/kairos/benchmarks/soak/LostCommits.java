package dev.kairos.benchmarks.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Commits a killed instance made that the next instance of its slot did not find, read from the
 * children's TRACE logs (a soak run with {@code
 * -Dorg.slf4j.simpleLogger.log.dev.kairos.engine=trace
 * -Dorg.slf4j.simpleLogger.log.dev.kairos.jdbc=trace}, as {@code .ci/run} runs the H2 soak): for
 * each job, the versions a generation's log says it committed (or that it deleted the job), against
 * the first version the next generation's log says it read. A read older than a commit, or any read
 * of a job whose deletion committed last, is a commit lost with the kill (docs/RELIABILITY.md, stop
 * 49). Meaningful for one instance: with several, another one's writes come between. Without TRACE
 * lines it finds nothing and says how many generations had none.
 */
final class LostCommits {
  /**
   * One commit of a job a generation logged: the log's time of day in ms ({@code -1} if the line
   * had none) and the version stored; or, for a deletion ({@code unschedule}), the newest version
   * of the job the generation had logged before it ({@code -1} if none).
   */
  record Commit(int msOfDay, long version, boolean deleted) {
    /**
     * True if a generation that first read the job at {@code read} ({@code -1}: it found none)
     * missed this commit: it read an older version, or, for a deletion, the deleted version or an
     * older one. (A version newer than every one logged is a later write whose line the kill cut
     * off, such as the job created again.)
     */
    boolean missedBy(long read) {
      return read != ABSENT && (deleted ? read <= version : read < version);
    }
  }

  /**
   * A job whose last commit the next generation did not see: {@code committed} is that commit's
   * version (for a deletion, the version deleted), {@code deleted} whether it was a deletion,
   * {@code at} its log time, {@code read} the version the next generation read first, and {@code
   * commits} every commit of the job the killed generation logged, in order.
   */
  record Loss(
      String killed,
      String next,
      String key,
      long committed,
      boolean deleted,
      String at,
      long read,
      List<Commit> commits) {

    /**
     * True if a commit logged from {@code fromMs} to {@code toMs} (times of day; the bounds
     * included) was not seen by the next generation ({@link Commit#missedBy}).
     */
    boolean lostBetween(int fromMs, int toMs) {
      for (Commit c : commits) {
        if (c.msOfDay() >= fromMs && c.msOfDay() <= toMs && c.missedBy(read)) {
          return true;
        }
      }
      return false;
    }
  }

  /** What {@link #find} read: the losses, the restarts looked at, those without TRACE lines. */
  record Report(List<Loss> losses, int restarts, int untraced) {
    /** The loss of {@code key}'s last commit at the kill of {@code killed}, if there was one. */
    Optional<Loss> loss(String killed, String key) {
      return losses.stream()
          .filter(l -> l.killed().equals(killed) && l.key().equals(key))
          .findFirst();
    }

    /** Lines for the soak's output. */
    String render() {
      StringBuilder sb = new StringBuilder();
      sb.append("commits missing after a restart (from TRACE logs; ")
          .append(restarts)
          .append(" restart(s) read")
          .append(untraced > 0 ? ", " + untraced + " without TRACE lines" : "")
          .append("): ")
          .append(losses.size())
          .append('\n');
      for (Loss l : losses) {
        sb.append("    ")
            .append(l.key())
            .append(": version ")
            .append(l.committed())
            .append(l.deleted() ? " deleted by " : " committed by ")
            .append(l.killed())
            .append(" at ")
            .append(l.at())
            .append(", ")
            .append(l.next())
            .append(" read version ")
            .append(l.read())
            .append('\n');
      }
      return sb.toString();
    }
  }

  /**
   * Writes that committed a version (replace, upsert, write-back), with the version stored: lines
   * logged after the commit returned. (A write-back's "over version" line is logged inside its
   * transaction, before the commit, so it only says what was read.)
   */
  private static final List<Pattern> COMMITTED =
      List.of(
          Pattern.compile(
              "job '([^']+)': replace at version \\d+ with \\S+ due \\S+: version (\\d+)"),
          Pattern.compile("job '([^']+)': upsert (?:CREATED|UPDATED)\\w*: version (\\d+)"),
          Pattern.compile("job '([^']+)': write-back of fire \\S+ committed: version (\\d+)"));

  /** Lines that say which version of a job a generation read. */
  private static final List<Pattern> READ =
      List.of(
          Pattern.compile("job '([^']+)': loaded \\S+ at version (\\d+)"),
          Pattern.compile("job '([^']+)': (?:start mark|marked RUNNING) at version (\\d+)"),
          Pattern.compile("job '([^']+)': replace at version (\\d+)"),
          Pattern.compile("job '([^']+)': write-back of fire \\S+ over version (\\d+)"),
          Pattern.compile("job '([^']+)': upsert UNCHANGED: version (\\d+)"));

  /** The engine's line after a deletion committed ({@code unschedule}). */
  private static final Pattern DELETED_LINE = Pattern.compile("job '([^']+)' unscheduled$");

  /** A create: the row was absent when the generation first looked. */
  private static final Pattern CREATED_LINE =
      Pattern.compile("job '([^']+)': upsert CREATED\\w*: version");

  /** What {@link #first} records for a job whose first event was its creation. */
  private static final long ABSENT = -1;

  private static final Pattern LOG_NAME = Pattern.compile("child-(.+)\\.g(\\d+)\\.log");

  private LostCommits() {}

  /** Reads the child logs in {@code dir}. */
  static Report find(Path dir) throws IOException {
    Map<String, TreeMap<Integer, Path>> bySlot = new HashMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Matcher m = LOG_NAME.matcher(p.getFileName().toString());
        if (m.matches()) {
          bySlot
              .computeIfAbsent(m.group(1), s -> new TreeMap<>())
              .put(Integer.parseInt(m.group(2)), p);
        }
      }
    }
    List<Loss> losses = new ArrayList<>();
    int restarts = 0;
    int untraced = 0;
    for (TreeMap<Integer, Path> gens : bySlot.values()) {
      List<Path> ordered = new ArrayList<>(gens.values());
      for (int i = 0; i + 1 < ordered.size(); i++) {
        restarts++;
        Map<String, List<Commit>> committed = new HashMap<>(); // key -> commits, in order
        Map<String, Long> known = new HashMap<>(); // key -> newest version logged
        Map<String, String> at = new HashMap<>();
        List<String> killedLog = Files.readAllLines(ordered.get(i), StandardCharsets.UTF_8);
        boolean traced = false;
        for (String line : killedLog) {
          traced |= line.contains(" TRACE ");
          Commit c = null;
          String key = null;
          for (Pattern p : COMMITTED) {
            Matcher m = p.matcher(line);
            if (m.find()) {
              key = m.group(1);
              c = new Commit(msOfDay(line), Long.parseLong(m.group(2)), false);
            }
          }
          Matcher d = DELETED_LINE.matcher(line);
          if (key == null && d.find()) {
            key = d.group(1);
            c = new Commit(msOfDay(line), known.getOrDefault(key, -1L), true);
          }
          for (Pattern p : READ) {
            Matcher m = p.matcher(line);
            if (m.find()) {
              known.merge(m.group(1), Long.parseLong(m.group(2)), Math::max);
            }
          }
          if (c != null) {
            committed.computeIfAbsent(key, k -> new ArrayList<>()).add(c);
            at.put(key, line.length() >= 12 ? line.substring(0, 12) : line);
            if (!c.deleted()) {
              known.merge(key, c.version(), Math::max);
            }
          }
        }
        if (!traced) {
          untraced++;
          continue;
        }
        Map<String, Long> first = first(ordered.get(i + 1));
        String killed = name(ordered.get(i));
        String next = name(ordered.get(i + 1));
        committed.forEach(
            (key, commits) -> {
              Long read = first.get(key);
              Commit last = commits.get(commits.size() - 1);
              if (read != null && last.missedBy(read)) {
                losses.add(
                    new Loss(
                        killed,
                        next,
                        key,
                        last.version(),
                        last.deleted(),
                        at.get(key),
                        read,
                        List.copyOf(commits)));
              }
            });
      }
    }
    return new Report(losses, restarts, untraced);
  }

  /**
   * The first version of each job a generation's log says it read, or {@link #ABSENT} for a job it
   * created before reading any.
   */
  private static Map<String, Long> first(Path log) throws IOException {
    Map<String, Long> first = new HashMap<>();
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      for (Pattern p : READ) {
        Matcher m = p.matcher(line);
        if (m.find()) {
          first.putIfAbsent(m.group(1), Long.parseLong(m.group(2)));
        }
      }
      Matcher c = CREATED_LINE.matcher(line);
      if (c.find()) {
        first.putIfAbsent(c.group(1), ABSENT);
      }
    }
    return first;
  }

  /** The time of day a log line begins with ({@code HH:mm:ss.SSS}), in ms; -1 if none. */
  static int msOfDay(String line) {
    if (line.length() < 12) {
      return -1;
    }
    try {
      return (int) (LocalTime.parse(line.substring(0, 12)).toNanoOfDay() / 1_000_000);
    } catch (DateTimeParseException e) {
      return -1;
    }
  }

  private static String name(Path log) {
    String f = log.getFileName().toString();
    return f.substring("child-".length(), f.length() - ".log".length());
  }
}
