package dev.kairos.jdbc.internal;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link MariaDbDeadlockTest} through MySQL Connector/J with the MySQL dialect: the driver reports
 * InnoDB's deadlock victim with SQLSTATE 40001 too, so {@link Database#inTransaction} runs it
 * again.
 */
class ConnectorJDeadlockTest {
  private static MySqlOnMariaDb db;

  @BeforeAll
  static void createDatabase() {
    db = MySqlOnMariaDb.create();
  }

  @AfterAll
  static void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void inTransaction_deadlockVictim_runAgainAndBothCommit() throws Exception {
    db.assumeReachable();
    MariaDbDeadlockTest.deadlockBothCommit(db, db.url());
  }
}
