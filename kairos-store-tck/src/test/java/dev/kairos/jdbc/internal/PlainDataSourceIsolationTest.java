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
}
