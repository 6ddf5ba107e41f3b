package dev.kairos.jdbc;

import dev.kairos.tck.TestDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link UnreadableRowsContract} on an embedded H2 file. */
class H2UnreadableRowsTest extends UnreadableRowsContract {
  @TempDir Path dir;

  @Override
  protected TestDatabase database() {
    return new H2TestDatabase(dir);
  }
}
