package dev.kairos.jdbc;

import dev.kairos.engine.internal.RacingChangesTest;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.PostgresTestDatabase;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;

/** API calls during a run, on PostgreSQL (see {@link RacingChangesTest}); tables per test. */
class PostgresRacingChangesTest extends RacingChangesTest {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();
  private static final AtomicInteger tables = new AtomicInteger();

  @Override
  protected JobStore newStore() {
    db.assumeReachable();
    return db.builder().tablePrefix("r" + tables.incrementAndGet() + "_").build().jobStore();
  }
}
