package dev.kairos.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.jdbi.v3.core.ConnectionFactory;

/**
 * Hands out connections as the store's statements need them.
 *
 * <p><b>Auto-commit.</b> Jdbi takes a connection that is not in auto-commit for one inside an open
 * transaction: it runs the store's work without a commit of its own, and the pool rolls it back
 * when the connection is returned. That is right only for a connection of the caller's open
 * transaction (Spring's {@code TransactionAwareDataSourceProxy} inside a transaction, which {@code
 * callerTransactionOpen} recognises). A pool whose connections merely start with auto-commit off
 * (HikariCP's {@code autoCommit=false}, a common setting beside JPA) would lose every write the
 * store makes, so such a connection is switched to auto-commit for the store's call, which then
 * commits its own work, and switched back before it goes back to the pool.
 *
 * <p><b>Isolation.</b> Connections are handed out at the isolation level the dialect needs (MariaDB
 * and MySQL: READ COMMITTED, see {@link MariaDbSql}), set only on a connection that has another
 * level. A pool the store makes is configured with the level already, so this costs nothing there;
 * a user's pool with another default pays a statement when a connection is borrowed and another
 * when it is returned.
 */
final class StoreConnections implements ConnectionFactory {
  private final DataSource dataSource;
  private final int level;
  private final BooleanSupplier callerTransactionOpen;

  /** Connections switched to auto-commit here, to be switched back when closed. */
  private final Set<Connection> switched =
      Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

  /**
   * @param dataSource where connections come from
   * @param level the isolation level to set, or -1 to keep each connection's
   * @param callerTransactionOpen whether the calling thread has a transaction open that a
   *     connection of {@code dataSource} belongs to; null: never
   */
  StoreConnections(DataSource dataSource, int level, BooleanSupplier callerTransactionOpen) {
    this.dataSource = dataSource;
    this.level = level;
    this.callerTransactionOpen = callerTransactionOpen;
  }

  @Override
  public Connection openConnection() throws SQLException {
    Connection c = dataSource.getConnection();
    try {
      if (level != -1 && c.getTransactionIsolation() != level) {
        c.setTransactionIsolation(level);
      }
      if (!c.getAutoCommit() && !joins()) {
        c.setAutoCommit(true);
        switched.add(c);
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      try {
        closeConnection(c);
      } catch (SQLException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  @Override
  public void closeConnection(Connection c) throws SQLException {
    try {
      if (switched.remove(c)) {
        c.setAutoCommit(false); // as the pool handed it out
      }
    } finally {
      c.close();
    }
  }

  private boolean joins() {
    return callerTransactionOpen != null && callerTransactionOpen.getAsBoolean();
  }
}
