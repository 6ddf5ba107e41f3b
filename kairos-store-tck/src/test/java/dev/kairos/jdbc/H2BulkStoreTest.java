package dev.kairos.jdbc;

import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The bulk contract on an embedded H2 file; each store gets tables of its own. */
class H2BulkStoreTest extends BulkStoreContract {
  @TempDir Path dir;

  @Override
  protected JobStore newStore() {
    return new H2TestDatabase(dir)
        .builder()
        .tablePrefix(JdbcStoreContract.nextPrefix())
        .build()
        .jobStore();
  }
}
