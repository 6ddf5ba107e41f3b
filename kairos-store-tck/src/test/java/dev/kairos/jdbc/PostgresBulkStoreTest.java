package dev.kairos.jdbc;

import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The bulk contract on PostgreSQL, in a schema of this class's own. */
class PostgresBulkStoreTest extends BulkStoreContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected int expectedParallelUpserts() {
    return 2;
  }

  @Override
  protected JobStore newStore() {
    db.assumeReachable();
    return db.builder().tablePrefix(JdbcStoreContract.nextPrefix()).build().jobStore();
  }
}
