package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.mysql.cj.jdbc.MysqlDataSource;
import dev.kairos.tck.MariaDbTestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A driver's plain data source, which the store pools itself, still gets READ COMMITTED on MariaDB
 * and MySQL (InnoDB's default REPEATABLE READ deadlocks concurrent inserts of new jobs), as the
 * server reports it for the store's own connections.
 */
class PlainDataSourceIsolationTest {
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
  void connectorJDataSource_storeConnectionsAreReadCommitted() throws Exception {
    db.assumeReachable();
    MysqlDataSource ds = new MysqlDataSource();
    ds.setURL(db.url());
    ds.setUser(MariaDbTestDatabase.USER);
    ds.setPassword("");

    assertThat(serverIsolation(ds, "t_iso_mysql_")).isEqualTo("READ-COMMITTED");
    assertThat(idleTransactionTimeout(ConnectionSource.of(ds, 2), "t_iso_mysql_")).isEqualTo(2);
  }

  @Test
  void mariaDbDataSource_storeConnectionsAreReadCommitted() throws Exception {
    db.assumeReachable();
    MariaDbDataSource ds =
        new MariaDbDataSource(
            db.url()
                    .replace(MySqlOnMariaDb.SERVER, MariaDbTestDatabase.SERVER)
                    .replaceAll("\\?.*", "")
                + "?user="
                + MariaDbTestDatabase.USER);

    assertThat(serverIsolation(ds, "t_iso_maria_")).isEqualTo("READ-COMMITTED");
    assertThat(idleTransactionTimeout(ConnectionSource.of(ds, 2), "t_iso_maria_")).isEqualTo(2);
  }

  private static String serverIsolation(DataSource ds, String prefix) {
    Database database = new Database(ConnectionSource.of(ds, 2), prefix, true);
    try {
      database.open();
      return database.withHandle(
          "reading the isolation level",
          h -> h.createQuery("SELECT @@tx_isolation").mapTo(String.class).one());
    } finally {
      database.close();
    }
  }

  /**
   * The store's pools end a transaction idle for 2 s on MariaDB (see {@code
   * ConnectionSource.MYSQL_FAMILY_SESSION_SETUP}), as on PostgreSQL.
   */
  private static int idleTransactionTimeout(ConnectionSource source, String prefix) {
    Database database = new Database(source, prefix, true);
    try {
      database.open();
      return database.withHandle(
          "reading idle_transaction_timeout",
          h ->
              h.createQuery("SELECT @@session.idle_transaction_timeout")
                  .mapTo(Integer.class)
                  .one());
    } finally {
      database.close();
    }
  }

  @Test
  void poolFromUrl_mariaDbSession_endsIdleTransactions() {
    db.assumeReachable();
    String url =
        db.url().replace(MySqlOnMariaDb.SERVER, MariaDbTestDatabase.SERVER).replaceAll("\\?.*", "");
    ConnectionSource source = ConnectionSource.pool(url, MariaDbTestDatabase.USER, "", 2, "test");
    assertThat(idleTransactionTimeout(source, "t_iso_url_")).isEqualTo(2);
  }
}
