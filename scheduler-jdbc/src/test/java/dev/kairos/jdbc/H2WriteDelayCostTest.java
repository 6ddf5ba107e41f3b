package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures what durable commits cost on H2: 2,000 upserts (one transaction each) with
 * WRITE_DELAY=0, as {@link JdbcStore#h2} sets it, and with H2's default of 500 ms, which can lose
 * the last half second of commits on a crash ({@link H2CrashTest}). Reports the numbers in the log;
 * asserts nothing about time.
 */
class H2WriteDelayCostTest {
  private static final Logger log = LoggerFactory.getLogger(H2WriteDelayCostTest.class);
  private static final int UPSERTS = 2_000;

  @TempDir Path dir;

  @Test
  void writeDelay_costOfDurableCommits_reported() {
    long[] durable = new long[2];
    long[] lagging = new long[2];
    for (int round = 0; round < 2; round++) {
      durable[round] = timeUpserts(JdbcStore.h2(dir.resolve("durable-" + round)));
      lagging[round] =
          timeUpserts(
              JdbcStore.builder()
                  .url("jdbc:h2:file:" + dir.resolve("lagging-" + round).resolve("kairos"))
                  .build());
    }
    log.info(
        "{} upserts on H2: WRITE_DELAY=0 took {} ms and {} ms; WRITE_DELAY=500 (default) took {} ms"
            + " and {} ms",
        UPSERTS,
        durable[0],
        durable[1],
        lagging[0],
        lagging[1]);
  }

  private static long timeUpserts(JdbcStore store) {
    try {
      store.open();
      for (int i = 0; i < 200; i++) { // warm-up
        store.upsert(JobStoreContract.fresh("warm-" + i, JobStoreContract.T0));
      }
      long start = System.nanoTime();
      for (int i = 0; i < UPSERTS; i++) {
        store.upsert(JobStoreContract.fresh("job-" + i, JobStoreContract.T0.plusSeconds(i)));
      }
      long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
      assertThat(store.findAll()).hasSize(UPSERTS + 200);
      return took;
    } finally {
      store.close();
    }
  }
}
