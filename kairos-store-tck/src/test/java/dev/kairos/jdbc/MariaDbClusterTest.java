package dev.kairos.jdbc;

import dev.kairos.tck.ClusterProcessContract;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Cluster mode with three child JVMs over MariaDB, in a database of this class's own. MariaDB has
 * no application names in its process list, so each test's stores connect as a user of their own
 * ({@code kc_<prefix>}, dropped afterwards), by which {@code KILL CONNECTION} finds them.
 *
 * <p>Tagged {@code long}: not in the test command; CI runs it in a second one (README, "Two
 * commands"), as {@code PostgresClusterTest} runs the same scenarios in the first.
 */
@org.junit.jupiter.api.Tag("long")
class MariaDbClusterTest extends ClusterProcessContract {
  private static MariaDbTestDatabase db;
  private static final Set<String> users = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void createDatabase() {
    db = MariaDbTestDatabase.create();
  }

  @AfterAll
  static void dropDatabaseAndUsers() {
    if (db != null) {
      users.forEach(u -> db.execute("DROP USER IF EXISTS '" + u + "'@'%'"));
      db.close();
    }
  }

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Override
  protected String storeUrl(String prefix) {
    return db.url();
  }

  @Override
  protected String storeUser(String prefix) {
    String user = "kc_" + db.name().substring("kairos_".length()) + "_" + prefix;
    if (users.add(user)) {
      db.execute("CREATE USER IF NOT EXISTS '" + user + "'@'%'");
      db.execute("GRANT ALL ON " + db.name() + ".* TO '" + user + "'@'%'");
    }
    return user;
  }

  @Override
  protected String resultsUrl(String prefix) {
    return db.url();
  }

  @Override
  protected String resultsUser() {
    return MariaDbTestDatabase.USER;
  }

  /**
   * MEMORY tables: InnoDB would flush every run's insert to disk (MariaDB cannot turn that off per
   * session, as PostgreSQL's {@code synchronous_commit} can), doubling the fsyncs the cluster
   * itself needs.
   */
  @Override
  protected String resultsTableOptions() {
    return " ENGINE=MEMORY";
  }

  @Override
  protected String nowSql() {
    return "CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) * 0.000001"
        + " AS DECIMAL(28,9))";
  }

  @Override
  protected int kill(String prefix) {
    return db.killConnectionsOf(storeUser(prefix));
  }
}
