package dev.kairos.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
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
 * <p><b>Isolation.</b> Every store transaction runs at READ COMMITTED ({@link
 * Dialect#isolation()}): its locking reads and conditional updates must see the rows other
 * transactions committed while it waited for their locks. At REPEATABLE READ or SERIALIZABLE (a
 * database whose {@code default_transaction_isolation} says so, a pool configured so) PostgreSQL
 * answers racing claims and inserts with serialization failures, and a check made after a lock wait
 * reads an old snapshot (a calendar deleted while a job was being attached to it); InnoDB's
 * REPEATABLE READ takes gap locks that deadlock concurrent inserts of new jobs. A pool the store
 * makes is configured with the level ({@code level} -1 here: nothing to do per connection).
 * Otherwise a connection with another level is set to READ COMMITTED for the store's call and set
 * back to its own level before it goes back to the pool, which may not reset it (HikariCP would; a
 * plain pool would hand the application a connection at the store's level).
 *
 * <p>A connection of the caller's open transaction is left as it is, level included: its
 * transaction has begun at the level the application chose, which no setting can change any more.
 */
final class StoreConnections implements ConnectionFactory {
  private final DataSource dataSource;
  private final int level;
  private final BooleanSupplier callerTransactionOpen;

  /** Connections whose settings were changed here, with what to set back when they are closed. */
  private final Map<Connection, Changed> changed =
      Collections.synchronizedMap(new IdentityHashMap<>());

  /**
   * What {@link #openConnection()} changed on one connection.
   *
   * @param autoCommitOff the connection came with auto-commit off and was switched on
   * @param level the isolation level it came with, if it was changed; -1 if not
   */
  private record Changed(boolean autoCommitOff, int level) {}

  /**
   * @param dataSource where connections come from
   * @param level the isolation level to set on a connection that has another, or -1 to keep each
   *     connection's (a pool configured with it)
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
      boolean autoCommitOff = !c.getAutoCommit();
      if (autoCommitOff && joins()) {
        return c; // the caller's open transaction, as the caller set it up
      }
      if (autoCommitOff) {
        c.setAutoCommit(true);
        changed.put(c, new Changed(true, -1));
      }
      if (level != -1) {
        int own = c.getTransactionIsolation();
        if (own != level) {
          c.setTransactionIsolation(level);
          changed.put(c, new Changed(autoCommitOff, own));
        }
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
      Changed was = changed.remove(c);
      if (was != null) {
        if (was.level() != -1) {
          c.setTransactionIsolation(was.level()); // while no transaction is open
        }
        if (was.autoCommitOff()) {
          c.setAutoCommit(false); // as the pool handed it out
        }
      }
    } finally {
      c.close();
    }
  }

  private boolean joins() {
    return callerTransactionOpen != null && callerTransactionOpen.getAsBoolean();
  }
}
