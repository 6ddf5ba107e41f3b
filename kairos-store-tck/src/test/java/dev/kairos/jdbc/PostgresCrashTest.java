package dev.kairos.jdbc;

import dev.kairos.tck.CrashContract;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Crashes of a scheduler JVM over PostgreSQL, in a schema of this class's own. */
class PostgresCrashTest extends CrashContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

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
