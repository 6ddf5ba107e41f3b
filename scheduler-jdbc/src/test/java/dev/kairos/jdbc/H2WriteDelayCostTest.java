package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.spi.JobRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures what durable commits cost on H2: 2,000 upserts (one transaction each) with
 * WRITE_DELAY=0, as {@link JdbcStore#h2} sets it, and with H2's default of 500 ms, which can lose
 * the last half second of commits on a crash ({@link H2CrashTest}); over the async: file system
 * that {@code h2(dir)} uses and over the default one. Reports the numbers in the log; asserts
 * nothing about time.
 */
class H2WriteDelayCostTest {
  private static final Logger log = LoggerFactory.getLogger(H2WriteDelayCostTest.class);
  private static final int UPSERTS = 2_000;

  @TempDir Path dir;

  @Test
  void writeDelay_costOfDurableCommits_reported() {
    String durable = JdbcStore.Builder.h2Url(Path.of("DIR", "kairos"));
    Map<String, String> urls = new LinkedHashMap<>();
    urls.put("async: WRITE_DELAY=0 (JdbcStore.h2)", durable);
    urls.put("async: WRITE_DELAY=500", durable.replace("WRITE_DELAY=0", "WRITE_DELAY=500"));
    urls.put("file: WRITE_DELAY=0", durable.replace("h2:async:", "h2:file:"));
    urls.put(
        "file: WRITE_DELAY=500 (H2's default)",
        durable.replace("h2:async:", "h2:file:").replace("WRITE_DELAY=0", "WRITE_DELAY=500"));
    Map<String, Long> millis = new LinkedHashMap<>();
    for (int round = 0; round < 2; round++) { // round 0 warms the JIT up
      for (Map.Entry<String, String> u : urls.entrySet()) {
        String url =
            u.getValue()
                .replace(
                    "DIR",
                    dir.resolve(round + "-" + millis.size() + "-" + u.getKey().hashCode())
                        .toString());
        long took = timeUpserts(JdbcStore.builder().url(url).build());
        if (round == 1) {
          millis.put(u.getKey(), took);
        }
      }
    }
    log.info("{} upserts on H2, one transaction each: {}", UPSERTS, millis);
  }

  private static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");

  private static long timeUpserts(JdbcStore store) {
    try {
      store.open();
      long start = System.nanoTime();
      for (int i = 0; i < UPSERTS; i++) {
        store
            .jobStore()
            .upsert(
                JobRecord.fresh(
                    JobSpec.named("job-" + i).handler("h").fixedRate(Duration.ofMinutes(1)),
                    T0.plusSeconds(i)));
      }
      long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
      assertThat(store.jobStore().findAll()).hasSize(UPSERTS);
      return took;
    } finally {
      store.close();
    }
  }
}
