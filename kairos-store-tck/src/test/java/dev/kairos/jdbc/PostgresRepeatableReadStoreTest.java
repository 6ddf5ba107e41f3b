package dev.kairos.jdbc;

import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract on a PostgreSQL whose sessions default to REPEATABLE READ (an administrator's
 * {@code ALTER DATABASE … SET default_transaction_isolation}): the store's pool runs its
 * transactions at READ COMMITTED all the same. Before, racing upserts of one key failed with
 * serialization errors and a calendar could be deleted while a job was being attached to it.
 *
 * <p>Tagged {@code long}: not in the test command (the contract's second run on the PostgreSQL
 * server after {@code PostgresStoreTest}'s, about 70 s; {@code IsolationLevelTest} checks the level
 * in the test command); CI runs it in a second one (README, "Two commands").
 */
@org.junit.jupiter.api.Tag("long")
class PostgresRepeatableReadStoreTest extends JdbcStoreContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db.withDefaultIsolation("repeatable read");
  }
}
