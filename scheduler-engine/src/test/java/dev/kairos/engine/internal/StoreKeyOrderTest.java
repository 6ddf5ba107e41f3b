package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.WindowCursor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A database hands out due jobs in (due time, key) order by its own collation, which need not be
 * Java's: PostgreSQL databases are often created with a language's collation (en_US.UTF-8, ICU
 * en-US), where {@code a < B} and punctuation hardly counts, while Java's {@code compareTo} says
 * {@code B < a}. A window's pages resume after the last row in the database's order; the dispatcher
 * judged "is this job at or before the window's end" in Java's. A job changed or finished with its
 * next fire at the very due time where a page ended, its key after the page's last in Java's order
 * and before it in the database's, was left for a page that never returned it: it never fired
 * again. Many jobs due at one instant (a cron time, a fixed rate or a one-shot time shared by
 * thousands of jobs) make that due time a page boundary.
 */
class StoreKeyOrderTest {
  /** (due, key) in a case-insensitive collation, as a database with a language collation sorts. */
  static final Comparator<WindowCursor> COLLATION =
      Comparator.comparing(WindowCursor::dueTime)
          .thenComparing(c -> c.key().toLowerCase(Locale.ROOT))
          .thenComparing(WindowCursor::key);

  /**
   * An in-memory store whose window reads order keys by {@code order}; while {@code stale} holds
   * rows, the next window read answers from them (rows read before later changes).
   */
  static JobStore collatingStore(
      InMemoryStore target,
      Comparator<WindowCursor> order,
      AtomicReference<List<JobRecord>> stale) {
    return (JobStore)
        Proxy.newProxyInstance(
            JobStore.class.getClassLoader(),
            new Class<?>[] {JobStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("due")) {
                WindowCursor after = (WindowCursor) args[0];
                Instant before = (Instant) args[1];
                int limit = (Integer) args[2];
                List<JobRecord> read = stale.getAndSet(null);
                if (read == null) {
                  read = target.due(null, before, Integer.MAX_VALUE);
                }
                return read.stream()
                    .filter(r -> r.dueTime().isBefore(before))
                    .sorted(Comparator.comparing(JobRecord::cursor, order))
                    .filter(r -> after == null || order.compare(r.cursor(), after) > 0)
                    .limit(limit)
                    .toList();
              }
              try {
                return method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static JobStore collatingStore(
      InMemoryStore target, AtomicReference<List<JobRecord>> stale) {
    return collatingStore(target, COLLATION, stale);
  }

  /**
   * Stores one-shots B, D, F and H due at {@code at} and opens a harness over the store that reads
   * windows of two rows and has read the first: (at, B), (at, D).
   */
  private static Harness pagedAtBoundary(JobStore store, Instant at) {
    Harness writer = new Harness(store, ctx -> {});
    for (String key : List.of("B", "D", "F", "H")) {
      writer.scheduler.schedule(job(key).at(at));
    }
    Harness h = windowOfTwo(store);
    h.scheduler.runDue();
    return h;
  }

  private static Map<String, Long> runsByKey(Harness h) {
    return h.runs.stream()
        .collect(Collectors.groupingBy(JobContext::key, TreeMap::new, Collectors.counting()));
  }

  private static JobSpec job(String key) {
    return JobSpec.named(key).handler("h");
  }

  /** A harness over {@code store}, reading windows of two rows, whose jobs were stored before. */
  private static Harness windowOfTwo(JobStore store) {
    return new Harness(store, Kairos.builder().windowSize(2), ctx -> {});
  }

  @Test
  void finishedWithTheNextFireAtThePagesDueTime_keyBeforeItInTheStoresOrder_firesAgain() {
    JobStore store = collatingStore(new InMemoryStore(), new AtomicReference<>());
    Harness writer = new Harness(store, ctx -> {});
    Duration minute = Duration.ofMinutes(1);
    writer.scheduler.schedule(job("a").fixedRate(minute).startAt(Harness.T0.plus(minute)));
    for (String key : List.of("B", "c", "D")) {
      writer.scheduler.schedule(
          job(key).fixedRate(minute).startAt(Harness.T0.plus(minute.multipliedBy(2))));
    }
    // First page: (1 min, a), (2 min, B). "a" runs at 1 min; its next fire, 2 min, is the page's
    // due time, and "a" comes before "B" in the store's order but after it in Java's.
    Harness h = windowOfTwo(store);
    h.runUntil(Harness.T0.plus(minute.multipliedBy(10)));

    assertThat(runsByKey(h)).isEqualTo(Map.of("a", 10L, "B", 9L, "c", 9L, "D", 9L));
  }

  @Test
  void scheduledAtThePagesDueTime_keyBeforeItInTheStoresOrder_fires() {
    Instant at = Harness.T0.plusSeconds(60);
    Harness h = pagedAtBoundary(collatingStore(new InMemoryStore(), new AtomicReference<>()), at);
    h.scheduler.schedule(job("c").at(at)); // before "D" in the store's order, after it in Java's
    h.runUntil(at.plusSeconds(60));

    assertThat(runsByKey(h)).isEqualTo(Map.of("B", 1L, "c", 1L, "D", 1L, "F", 1L, "H", 1L));
  }

  @Test
  void rowReadBeforeItsJobRanAndWasDeleted_atThePagesDueTime_doesNotRunAgain() {
    AtomicReference<List<JobRecord>> stale = new AtomicReference<>();
    InMemoryStore target = new InMemoryStore(100, false); // a completed one-shot is deleted
    Instant at = Harness.T0.plusSeconds(60);
    Harness h = pagedAtBoundary(collatingStore(target, stale), at);
    h.scheduler.schedule(job("e").at(at)); // after "D" in both orders: queued now, and in page 2
    // The next page is read as it was now, before "e" runs and is deleted: a load racing the
    // write-back of "e" (a page read and applied around it, outside the change lock).
    stale.set(target.due(null, Instant.MAX, Integer.MAX_VALUE));
    h.runUntil(at.plusSeconds(60));

    assertThat(runsByKey(h)).isEqualTo(Map.of("B", 1L, "D", 1L, "e", 1L, "F", 1L, "H", 1L));
  }
}
