package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.StoreException;
import dev.kairos.spi.JobRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A store that cannot write is refused at open(), not discovered at the first write-back. */
class H2ReadOnlyTest {
  @TempDir Path dir;

  @Test
  void readOnlyDatabase_isRefusedAtOpen_sayingWhy() {
    try (JdbcStore writable = JdbcStore.h2(dir)) {
      writable.open();
      writable
          .jobStore()
          .upsert(
              JobRecord.fresh(
                  JobSpec.named("j").handler("h").fixedRate(Duration.ofMinutes(1)),
                  Instant.parse("2026-01-01T00:00:00Z")));
    }
    String readOnly = JdbcStore.Builder.h2Url(dir.resolve("kairos")) + ";ACCESS_MODE_DATA=r";
    JdbcStore store = JdbcStore.builder().url(readOnly).build();

    assertThatThrownBy(store::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("is not writable")
        .hasMessageContaining("The database is read only")
        .hasMessageContaining("ACCESS_MODE_DATA=r");
    store.close();
  }

  @Test
  void writableDatabase_opens() {
    try (JdbcStore store = JdbcStore.h2(dir)) {
      store.open();
      assertThat(store.jobStore().findAll()).isEmpty();
    }
  }
}
