package dev.kairos.benchmarks.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Commits a killed instance made that the next instance of its slot did not find, read from the
 * children's TRACE logs (a soak run with {@code
 * -Dorg.slf4j.simpleLogger.log.dev.kairos.engine=trace
 * -Dorg.slf4j.simpleLogger.log.dev.kairos.jdbc=trace}): for each job, the last version a
 * generation's log says it committed, against the first version the next generation's log says it
 * read. A read older than a commit is a commit lost with the kill (docs/RELIABILITY.md, stop 49).
 * Meaningful for one instance: with several, another one's writes come between. Without TRACE lines
 * it finds nothing and says how many generations had none.
 */
final class LostCommits {
  /** A job whose committed version the next generation did not see. */
  record Loss(String killed, String next, String key, long committed, String at, long read) {}

  /** What {@link #find} read: the losses, the restarts looked at, those without TRACE lines. */
  record Report(List<Loss> losses, int restarts, int untraced) {
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
            .append(" committed by ")
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
        Map<String, Long> committed = new HashMap<>(); // key -> last version committed
        Map<String, String> at = new HashMap<>();
        List<String> killedLog = Files.readAllLines(ordered.get(i), StandardCharsets.UTF_8);
        boolean traced = false;
        for (String line : killedLog) {
          traced |= line.contains(" TRACE ");
          for (Pattern p : COMMITTED) {
            Matcher m = p.matcher(line);
            if (m.find()) {
              committed.put(m.group(1), Long.parseLong(m.group(2)));
              at.put(m.group(1), line.length() >= 12 ? line.substring(0, 12) : line);
            }
          }
        }
        if (!traced) {
          untraced++;
          continue;
        }
        Map<String, Long> read = new HashMap<>();
        for (String line : Files.readAllLines(ordered.get(i + 1), StandardCharsets.UTF_8)) {
          for (Pattern p : READ) {
            Matcher m = p.matcher(line);
            if (m.find()) {
              read.putIfAbsent(m.group(1), Long.parseLong(m.group(2)));
            }
          }
        }
        String killed = name(ordered.get(i));
        String next = name(ordered.get(i + 1));
        committed.forEach(
            (key, v) -> {
              Long first = read.get(key);
              if (first != null && first < v) {
                losses.add(new Loss(killed, next, key, v, at.get(key), first));
              }
            });
      }
    }
    return new Report(losses, restarts, untraced);
  }

  private static String name(Path log) {
    String f = log.getFileName().toString();
    return f.substring("child-".length(), f.length() - ".log".length());
  }
}
