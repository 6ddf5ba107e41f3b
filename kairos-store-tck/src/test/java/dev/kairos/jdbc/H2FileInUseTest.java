package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.StoreException;
import dev.kairos.tck.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedded H2 file that another process has open (the application, while a user points the CLI
 * at its folder) is refused at {@code open()} with a message that says so and what to do, not H2's
 * own text, and the other process's jobs are left as they are.
 */
class H2FileInUseTest {
  @TempDir Path dir;

  @Test
  void open_whileAnotherProcessHasTheFile_saysSoAndWhatToDo() throws Exception {
    try (ChildJvm child =
        ChildJvm.start(BusyH2Child.class, dir.resolve("child.log"), dir.toString())) {
      child.awaitLine("STARTED", Duration.ofSeconds(120));
      JdbcStore store = JdbcStore.h2(dir);
      try {
        assertThatThrownBy(store::open)
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("the H2 file is open in another process")
            .hasMessageContaining("one process at a time");
      } finally {
        store.close();
      }
      // The child goes on firing: nothing of its store was touched.
      child.discardPendingLines();
      assertThat(child.awaitLine("RUNS", Duration.ofSeconds(120))).startsWith("RUNS ");
      child.kill();
    }
  }
}
