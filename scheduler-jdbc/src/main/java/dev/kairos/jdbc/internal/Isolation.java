package dev.kairos.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jdbi.v3.core.ConnectionFactory;

/**
 * Hands out connections at the isolation level the dialect needs (MariaDB and MySQL: READ
 * COMMITTED, see {@link MariaDbSql}), setting it only on a connection that has another level. A
 * pool the store makes is configured with the level already, so this costs nothing there; a user's
 * pool with another default pays a statement when a connection is borrowed and another when it is
 * returned.
 */
final class Isolation implements ConnectionFactory {
  private final DataSource dataSource;
  private final int level;

  private Isolation(DataSource dataSource, int level) {
    this.dataSource = dataSource;
    this.level = level;
  }

  /** Connections of {@code dataSource} at {@code level}, or as they come if level is -1. */
  static ConnectionFactory of(DataSource dataSource, int level) {
    return level == -1 ? dataSource::getConnection : new Isolation(dataSource, level);
  }

  @Override
  public Connection openConnection() throws SQLException {
    Connection c = dataSource.getConnection();
    try {
      if (c.getTransactionIsolation() != level) {
        c.setTransactionIsolation(level);
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }
}
