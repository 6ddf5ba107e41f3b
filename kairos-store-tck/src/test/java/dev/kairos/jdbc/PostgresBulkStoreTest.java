package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import org.junit.jupiter.api.Test;
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
    return db.builder().poolSize(4).tablePrefix(JdbcStoreContract.nextPrefix()).build().jobStore();
  }

  /** With a pool of two connections, one is left for fires: one call at a time. */
  @Test
  void parallelUpserts_poolOfTwo_one() {
    db.assumeReachable();
    JobStore s = db.builder().tablePrefix(JdbcStoreContract.nextPrefix()).build().jobStore();
    try {
      s.open();
      assertThat(s.parallelUpserts()).isEqualTo(1);
    } finally {
      s.close();
    }
  }
}
