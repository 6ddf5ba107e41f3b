package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on an embedded H2 file in a temporary folder. */
class H2StoreTest extends JdbcStoreContract {
  @TempDir Path dir;

  @Override
  protected TestDatabase database() {
    return new H2TestDatabase(dir);
  }

  @Test
  void h2_storesInKairosFileOfTheFolder_withoutWriteDelay() {
    assertThat(Files.exists(dir.resolve("kairos.mv.db"))).isTrue();
    assertThat(
            database()
                .row(
                    "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                        + " WHERE SETTING_NAME = 'WRITE_DELAY'")
                .orElseThrow()
                .get("setting_value"))
        .isEqualTo("0");
  }

  /**
   * H2's automatic ANALYZE runs inside the COMMIT of whichever session crossed its change count,
   * after the commit, and under concurrent commits with {@code RETENTION_TIME=0} it can fail there
   * ("Chunk ... not found", h2database#4383): a change that was committed then reported as failed
   * to the caller. So it is off; every query the store runs has the same plan with or without
   * statistics (its indexes decide).
   */
  @Test
  void h2_runsNoAutomaticAnalyze() {
    assertThat(
            database()
                .row(
                    "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                        + " WHERE SETTING_NAME = 'ANALYZE_AUTO'")
                .orElseThrow()
                .get("setting_value"))
        .isEqualTo("0");
  }

  /**
   * A caller whose thread is interrupted may fail, but does not take the database down for the
   * others (as an interrupt inside H2's default FileChannel I/O would).
   */
  @Test
  void interruptedCaller_leavesDatabaseUsable() {
    for (int i = 0; i < 20; i++) {
      Thread.currentThread().interrupt();
      try {
        store.upsert(fresh("interrupted-" + i, T0));
      } catch (RuntimeException e) {
        // allowed: the caller was interrupted
      } finally {
        Thread.interrupted();
      }
    }

    store.upsert(fresh("after", T0));
    assertThat(store.find("after")).isPresent();
  }

  @Test
  void toString_namesFileAndPrefix() {
    assertThat(JdbcStore.h2(dir).toString())
        .isEqualTo(
            "JdbcStore[h2 file " + dir.toAbsolutePath().resolve("kairos") + ", prefix kairos_]");
  }
}
