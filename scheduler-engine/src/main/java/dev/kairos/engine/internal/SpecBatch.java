package dev.kairos.engine.internal;

import dev.kairos.JobSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Checks a batch of job specs (or keys) as a whole before anything is written: every problem of
 * every spec, and every key given twice, in one {@link IllegalArgumentException}.
 */
final class SpecBatch {
  /** Problems written out in full; beyond these, the message lists only the remaining keys. */
  static final int DETAILED = 50;

  private SpecBatch() {}

  /**
   * The specs, validated and with defaults resolved, in the order given.
   *
   * @throws IllegalArgumentException naming every invalid spec and every duplicate key
   */
  static List<JobSpec> validate(SpecValidator validator, Collection<JobSpec> specs) {
    if (specs == null) {
      throw new IllegalArgumentException("job specs: the collection is null");
    }
    List<JobSpec> valid = new ArrayList<>(specs.size());
    List<String> problems = new ArrayList<>();
    List<String> badKeys = new ArrayList<>();
    Map<String, List<Integer>> positions = new LinkedHashMap<>();
    int i = 0;
    for (JobSpec spec : specs) {
      try {
        valid.add(validator.validate(spec));
      } catch (IllegalArgumentException | NullPointerException e) { // NPE: a null spec

        problems.add("#" + i + " " + e.getMessage());
        badKeys.add(spec == null ? "#" + i + " (null spec)" : "'" + spec.key() + "'");
      }
      if (spec != null && spec.key() != null) {
        positions.computeIfAbsent(spec.key(), k -> new ArrayList<>(1)).add(i);
      }
      i++;
    }
    positions.forEach(
        (key, at) -> {
          if (at.size() > 1) {
            problems.add("job '" + key + "': key given " + at.size() + " times, at " + at);
            badKeys.add("'" + key + "'");
          }
        });
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(message(problems, badKeys, specs.size()));
    }
    return valid;
  }

  /**
   * The keys without repeats, in the order given.
   *
   * @throws IllegalArgumentException if the collection or any key is null, naming the positions
   */
  static List<String> keys(Collection<String> keys) {
    if (keys == null) {
      throw new IllegalArgumentException("job keys: the collection is null");
    }
    List<Integer> nulls = new ArrayList<>();
    LinkedHashSet<String> distinct = new LinkedHashSet<>();
    int i = 0;
    for (String key : keys) {
      if (key == null) {
        nulls.add(i);
      } else {
        distinct.add(key);
      }
      i++;
    }
    if (!nulls.isEmpty()) {
      throw new IllegalArgumentException(
          "job keys: " + nulls.size() + " null key(s) at " + nulls + "; nothing unscheduled");
    }
    return new ArrayList<>(distinct);
  }

  private static String message(List<String> problems, List<String> badKeys, int total) {
    StringBuilder m =
        new StringBuilder()
            .append(problems.size())
            .append(" problem(s) in a batch of ")
            .append(total)
            .append(" job spec(s); nothing scheduled: ");
    m.append(String.join("; ", problems.subList(0, Math.min(DETAILED, problems.size()))));
    if (problems.size() > DETAILED) {
      m.append("; and ")
          .append(problems.size() - DETAILED)
          .append(" more, for ")
          .append(String.join(", ", badKeys.subList(DETAILED, badKeys.size())));
    }
    return m.toString();
  }
}
