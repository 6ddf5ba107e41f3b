package dev.kairos.engine.internal;

import dev.kairos.BusinessCalendar;
import dev.kairos.JobSpec;
import dev.kairos.UnreadableJobException;
import dev.kairos.spi.JobRules;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The engine's copy of the store's calendars, by name: read at open and at every window load (so
 * calendars another instance stores arrive within half the look-ahead), and changed by {@code
 * putCalendar} and {@code removeCalendar} after the store. Workers read it without a lock.
 */
final class Calendars {
  /** Replaced whole, never changed in place. */
  private volatile SortedMap<String, BusinessCalendar> byName =
      Collections.unmodifiableSortedMap(new TreeMap<>());

  Optional<BusinessCalendar> get(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  SortedMap<String, BusinessCalendar> all() {
    return byName;
  }

  void replaceAll(Map<String, BusinessCalendar> calendars) {
    byName = Collections.unmodifiableSortedMap(new TreeMap<>(calendars));
  }

  synchronized void put(String name, BusinessCalendar calendar) {
    TreeMap<String, BusinessCalendar> m = new TreeMap<>(byName);
    m.put(name, calendar);
    byName = Collections.unmodifiableSortedMap(m);
  }

  synchronized void remove(String name) {
    TreeMap<String, BusinessCalendar> m = new TreeMap<>(byName);
    m.remove(name);
    byName = Collections.unmodifiableSortedMap(m);
  }

  /** Why the job's calendar cannot be used, naming the key and the calendar; null if it can. */
  String problem(JobSpec spec) {
    return spec.calendar()
        .filter(c -> !byName.containsKey(c))
        .map(
            c ->
                "job '"
                    + JobRules.printable(spec.key())
                    + "': calendar '"
                    + JobRules.printable(c)
                    + "' does not exist or cannot be read")
        .orElse(null);
  }

  /**
   * The spec's timetable with its calendar applied.
   *
   * @throws UnreadableJobException if the spec names a calendar there is none of
   */
  Timetable timetable(JobSpec spec) {
    return Timetables.of(spec, this::get);
  }
}
