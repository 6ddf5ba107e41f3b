package dev.kairos.jdbc;

import dev.kairos.tck.TestDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link FromV2MigrationContract} on an embedded H2 file. */
class H2FromV2MigrationTest extends FromV2MigrationContract {
  @TempDir Path dir;

  @Override
  protected TestDatabase database() {
    return new H2TestDatabase(dir);
  }

  @Override
  protected String folder() {
    return "h2";
  }
}
