package dev.kairos.jdbc.internal;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that hands out one connection of another, again and again, and gives it back when
 * closed itself: for Flyway, which takes two connections at once (one for its history table and
 * lock, one for the scripts), over a pool of one connection (the store's own or a user's HikariCP
 * pool), which would otherwise wait for the second until the pool's timeout.
 */
final class OneConnection implements DataSource, AutoCloseable {
  private final DataSource source;
  private Connection connection;
  private Connection shared;

  OneConnection(DataSource source) {
    this.source = source;
  }

  @Override
  public synchronized Connection getConnection() throws SQLException {
    if (connection == null) {
      connection = source.getConnection();
      Connection c = connection;
      InvocationHandler h =
          (proxy, method, args) -> {
            switch (method.getName()) {
              case "close":
                return null; // closed with this data source
              case "isClosed":
                return c.isClosed();
              default:
                try {
                  return method.invoke(c, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
            }
          };
      shared =
          (Connection)
              Proxy.newProxyInstance(
                  Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
    }
    return shared;
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("the store's pool has its own credentials");
  }

  @Override
  public synchronized void close() throws SQLException {
    if (connection != null) {
      if (!connection.getAutoCommit()) {
        connection.rollback();
        connection.setAutoCommit(true);
      }
      connection.close();
      connection = null;
      shared = null;
    }
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper of " + type.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
