package dev.kairos.jdbc;

import dev.kairos.engine.internal.RacingChangesTest;
import dev.kairos.spi.JobStore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** API calls during a run, on an embedded H2 store (see {@link RacingChangesTest}). */
class H2RacingChangesTest extends RacingChangesTest {
  @TempDir Path dir;

  @Override
  protected JobStore newStore() {
    return JdbcStore.h2(dir).jobStore();
  }
}
