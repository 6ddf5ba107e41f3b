package dev.kairos.jdbc;

import dev.kairos.tck.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * An application's data source, as a store joining its transactions sees it: on the thread that has
 * the application's transaction open ({@link #begin}), that transaction's connection (closed only
 * by the application); a new connection otherwise. {@link #inTransaction} is what {@code
 * JdbcStore.Builder.joinCallerTransactions} is given.
 */
final class CallerTransactionSource extends TestDataSource implements AutoCloseable {
  private final TestDatabase db;
  private final Connection app;
  private volatile Thread owner;

  CallerTransactionSource(TestDatabase db, Connection app) {
    this.db = db;
    this.app = app;
  }

  /** The calling thread has the application's transaction open from now on. */
  void begin() {
    owner = Thread.currentThread();
  }

  /** No thread has it open any more. */
  void end() {
    owner = null;
  }

  boolean inTransaction() {
    return Thread.currentThread() == owner;
  }

  /**
   * A store over this data source that joins the application's transaction, on tables {@code
   * prefix}.
   */
  JdbcStore.Builder joiningStore(String prefix) {
    return JdbcStore.builder()
        .dataSource(this)
        .joinCallerTransactions(this::inTransaction)
        .tablePrefix(prefix);
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (!inTransaction()) {
      return db.connect();
    }
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("close")) {
                return null; // the application's transaction goes on
              }
              try {
                return method.invoke(app, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Override
  public void close() {}
}
