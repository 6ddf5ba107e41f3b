package dev.kairos.jdbc;

import dev.kairos.tck.CrashContract;
import dev.kairos.tck.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes over an embedded H2 file: what returned before the SIGKILL is in the file (it is written
 * with {@code WRITE_DELAY=0}), and a run cut short by the kill is run again, once, as a recovery.
 */
class H2CrashTest extends CrashContract {
  @TempDir Path dir;

  @Override
  protected TestDatabase database() {
    return new H2TestDatabase(dir);
  }

  @Override
  protected List<String> childStoreArguments() {
    return List.of("h2=" + dir.toAbsolutePath());
  }
}
