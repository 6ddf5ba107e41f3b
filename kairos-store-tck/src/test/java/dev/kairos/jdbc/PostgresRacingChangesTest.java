package dev.kairos.jdbc;

import dev.kairos.engine.internal.RacingChangesTest;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.PostgresTestDatabase;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** API calls during a run, on PostgreSQL (see {@link RacingChangesTest}); tables per test. */
class PostgresRacingChangesTest extends RacingChangesTest {
  private static PostgresTestDatabase db;
  private static final AtomicInteger tables = new AtomicInteger();

  @BeforeAll
  static void createSchema() {
    db = PostgresTestDatabase.create();
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
    }
  }

  @Override
  protected JobStore newStore() {
    db.assumeReachable();
    return db.builder().tablePrefix("r" + tables.incrementAndGet() + "_").build().jobStore();
  }
}
