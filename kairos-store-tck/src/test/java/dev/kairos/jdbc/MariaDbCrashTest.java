package dev.kairos.jdbc;

import dev.kairos.tck.CrashContract;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Crashes of a scheduler JVM over MariaDB, in a database of this class's own. */
class MariaDbCrashTest extends CrashContract {
  private static MariaDbTestDatabase db;

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
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Override
  protected List<String> childStoreArguments() {
    return List.of("url=" + db.url(), "user=" + MariaDbTestDatabase.USER, "password=");
  }
}
