package dev.kairos.jdbc.internal;

import dev.kairos.jdbc.JdbcStore;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * A database of its own in the MariaDB at 127.0.0.1:3306 ({@link MariaDbTestDatabase}: skipped with
 * a reason if unreachable, failed under CI=true), reached through MySQL Connector/J ({@code
 * jdbc:mysql:}) and given the MySQL dialect ({@link MySqlSql#forceFor}): the MySQL dialect's
 * statements and DDL on a real server, though not on MySQL itself.
 */
public final class MySqlOnMariaDb implements TestDatabase, AutoCloseable {
  /** The server, without a database, as MySQL Connector/J addresses it. */
  static final String SERVER = "jdbc:mysql://127.0.0.1:3306/";

  private final MariaDbTestDatabase db;
  private final String url;

  private MySqlOnMariaDb(MariaDbTestDatabase db) {
    this.db = db;
    this.url = SERVER + db.name();
    MySqlSql.forceFor(url);
  }

  /**
   * Creates a fresh database; {@link #close()} drops it and ends the forced dialect.
   *
   * @return the new database
   */
  public static MySqlOnMariaDb create() {
    return new MySqlOnMariaDb(MariaDbTestDatabase.create());
  }

  /** Skips the calling test if the server was unreachable. */
  public void assumeReachable() {
    db.assumeReachable();
  }

  /**
   * The Connector/J URL of this database.
   *
   * @return the URL, with the connection options the tests use
   */
  public String url() {
    return url + "?sslMode=DISABLED&connectTimeout=3000";
  }

  @Override
  public JdbcStore.Builder builder() {
    return JdbcStore.builder().url(url()).user(MariaDbTestDatabase.USER).poolSize(2);
  }

  @Override
  public Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", MariaDbTestDatabase.USER);
    p.setProperty("password", "");
    return DriverManager.getConnection(url(), p);
  }

  @Override
  public void close() {
    MySqlSql.unforce(url);
    db.close();
  }
}
