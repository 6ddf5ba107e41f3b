package dev.kairos.jdbc;

import dev.kairos.tck.CrashContract;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Crashes of a scheduler JVM over PostgreSQL, in a schema of this class's own. */
class PostgresCrashTest extends CrashContract {
  private static PostgresTestDatabase db;

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
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Override
  protected List<String> childStoreArguments() {
    List<String> args =
        new ArrayList<>(List.of("url=" + db.url(), "user=" + PostgresTestDatabase.USER));
    if (PostgresTestDatabase.PASSWORD != null) {
      args.add("password=" + PostgresTestDatabase.PASSWORD);
    }
    return args;
  }
}
