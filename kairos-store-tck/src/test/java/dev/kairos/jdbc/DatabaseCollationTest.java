package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobRecord;
import dev.kairos.tck.PostgresTestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A PostgreSQL database created with a language's collation (here ICU en-US; en_US.UTF-8 behaves
 * alike) orders keys otherwise than Java: {@code c} comes before {@code D}. The store hands out a
 * window's pages in that order; the scheduler judged in Java's which jobs a page had covered. A job
 * scheduled at the very due time where a page ended, its key between the two orders, was left for a
 * page that never returned it, and never fired. The test makes its database and drops it.
 */
class DatabaseCollationTest {
  private static final Instant T0 = Instant.parse("2026-01-05T00:00:00Z");

  @RegisterExtension static final PostgresTestDatabase server = PostgresTestDatabase.create();

  @Test
  void languageCollation_jobAtThePagesDueTime_keyBetweenTheOrders_fires() throws Exception {
    server.assumeReachable();
    try (PostgresTestDatabase.OwnDatabase db =
        server.ownDatabase(
            "kairos_coll_",
            "TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'"
                + " LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'")) {
      run(db.url());
    }
  }

  private static JdbcStore store(String url) {
    return JdbcStore.builder()
        .url(url)
        .user(PostgresTestDatabase.USER)
        .password(PostgresTestDatabase.PASSWORD)
        .poolSize(3)
        .build();
  }

  private static void run(String url) throws Exception {
    Instant at = T0.plusSeconds(60);
    try (JdbcStore first = store(url)) {
      first.open();
      for (String key : List.of("B", "D", "F", "H")) {
        first.jobStore().upsert(JobRecord.fresh(JobSpec.named(key).handler("h").at(at), at));
      }
      first.jobStore().upsert(JobRecord.fresh(JobSpec.named("c").handler("h").at(at), at));
      // The premise: the database orders keys otherwise than Java ("c" before "D").
      assertThat(first.jobStore().due(null, Instant.MAX, 10))
          .extracting(JobRecord::key)
          .containsExactly("B", "c", "D", "F", "H");
      assertThat(first.jobStore().delete("c")).isTrue();
    }
    ManualClock clock = new ManualClock(T0);
    Map<String, AtomicInteger> fired = new ConcurrentHashMap<>();
    try (Scheduler s =
        Kairos.builder()
            .store(store(url))
            .clock(clock)
            .workers(2)
            .windowSize(2)
            .handler(
                "h",
                ctx -> fired.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet())
            .build()) {
      s.start();
      // the first page: (at, B), (at, D); the window is truncated there
      await().atMost(Duration.ofSeconds(20)).until(() -> s.stats().queuedJobs() == 2);
      s.schedule(JobSpec.named("c").handler("h").at(at)); // before "D" in the database's order
      clock.set(at);
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(10))
          .untilAsserted(
              () -> {
                Map<String, Integer> counts = new TreeMap<>();
                fired.forEach((k, v) -> counts.put(k, v.get()));
                assertThat(counts).isEqualTo(Map.of("B", 1, "c", 1, "D", 1, "F", 1, "H", 1));
              });
    }
  }
}
