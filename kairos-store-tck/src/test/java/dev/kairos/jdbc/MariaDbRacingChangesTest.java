package dev.kairos.jdbc;

import dev.kairos.engine.internal.RacingChangesTest;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.MariaDbTestDatabase;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** API calls during a run, on MariaDB (see {@link RacingChangesTest}); tables per test. */
class MariaDbRacingChangesTest extends RacingChangesTest {
  private static MariaDbTestDatabase db;
  private static final AtomicInteger tables = new AtomicInteger();

  @BeforeAll
  static void createDatabase() {
    db = MariaDbTestDatabase.create();
  }

  @AfterAll
  static void dropDatabase() {
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
