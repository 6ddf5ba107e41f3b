package dev.kairos.jdbc.internal;

import dev.kairos.jdbc.internal.ConnectionSource.Dedicated;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices the deployment mistake that runs every fire twice: two schedulers that are not clustered
 * on one set of tables (a second replica started without {@code clustered(true)}), or one that is
 * not clustered beside clustered ones. Neither claims its fires, so both run each of them.
 *
 * <p>A store that is not clustered holds a lock named after its tables (schema and prefix) for its
 * whole life, on a connection of its own ({@link ConnectionSource#dedicated()}): PostgreSQL's
 * session-level advisory lock, MariaDB's and MySQL's {@code GET_LOCK}. If another session holds it,
 * the store logs an ERROR saying what runs twice and how to mend it. A clustered store checks, once
 * at open, whether such a lock is held. The database ends the lock with its session, so a crashed
 * instance's lock goes when the database notices the closed connection.
 *
 * <p>It only reports, never refuses: a session the database still believes alive (a host that
 * vanished without closing its sockets, up to the server's TCP keepalive, hours by default) would
 * otherwise keep a restarted scheduler from starting. Not on H2 (an embedded file is locked by its
 * process), nor on a user's pool of one or two connections (holding one would starve the store). If
 * the lock's connection fails later, the lock is gone and is not taken again; the next start checks
 * again.
 */
final class SingleInstanceGuard implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SingleInstanceGuard.class);

  /** PostgreSQL's advisory locks of Kairos: the first of the two keys ("KAIR"). */
  private static final int LOCK_SPACE = 0x4b414952;

  private final Dialect dialect;
  private final String tables;
  private final String name; // the lock's name, when held
  private Dedicated held; // guarded by this

  private SingleInstanceGuard(Dialect dialect, String tables, String name, Dedicated held) {
    this.dialect = dialect;
    this.tables = tables;
    this.name = name;
    this.held = held;
  }

  /**
   * Takes (not clustered) or checks (clustered) the lock of the store's tables, logging an ERROR if
   * another scheduler that is not clustered uses them.
   *
   * @param source where the dedicated connection comes from
   * @param dialect the database's dialect
   * @param prefix the store's table prefix
   * @param clustered whether the store is clustered
   * @return the guard, holding the lock or not; close it with the store
   */
  static SingleInstanceGuard open(
      ConnectionSource source, Dialect dialect, String prefix, boolean clustered) {
    String tables = prefix + "*";
    SingleInstanceGuard none = new SingleInstanceGuard(dialect, tables, null, null);
    int poolSize = source.poolSize();
    if (dialect == Dialect.H2 || (poolSize > 0 && poolSize < 3 && !source.ownPool())) {
      return none;
    }
    Dedicated d = null;
    try {
      d = source.dedicated();
      Connection c = d.connection();
      String name = lockName(c, dialect, prefix);
      if (clustered) {
        if (heldElsewhere(c, dialect, name)) {
          log.error(
              "a scheduler that is not clustered uses tables {} (it holds their lock): it does"
                  + " not claim its fires, so they run there and in this cluster; build every"
                  + " instance on these tables with clustered(true)",
              tables);
        }
      } else if (take(c, dialect, name)) {
        SingleInstanceGuard holding = new SingleInstanceGuard(dialect, tables, name, d);
        d = null; // kept for the store's life
        return holding;
      } else {
        log.error(
            "another scheduler that is not clustered uses tables {} (it holds their lock): both"
                + " run every fire; run one instance, or build every instance with"
                + " clustered(true)",
            tables);
      }
      return none;
    } catch (SQLException | RuntimeException e) {
      log.warn(
          "could not check whether another scheduler uses tables {}; two schedulers that are not"
              + " clustered on the same tables run every fire twice",
          tables,
          e);
      return none;
    } finally {
      giveBack(d);
    }
  }

  /** Gives a dedicated connection back (with its own auto-commit setting), if there is one. */
  private static void giveBack(Dedicated d) {
    if (d == null) {
      return;
    }
    try {
      d.close();
    } catch (SQLException | RuntimeException e) {
      log.debug("giving back a connection failed", e);
    }
  }

  /** The lock's name: the tables' schema and prefix (PostgreSQL: hashed into the second key). */
  private static String lockName(Connection c, Dialect d, String prefix) throws SQLException {
    String schema = d == Dialect.POSTGRESQL ? "current_schema()" : "DATABASE()";
    try (PreparedStatement s = c.prepareStatement("SELECT " + schema);
        ResultSet r = s.executeQuery()) {
      r.next();
      return "kairos:" + r.getString(1) + "." + prefix.toLowerCase(Locale.ROOT);
    }
  }

  private static boolean take(Connection c, Dialect d, String name) throws SQLException {
    String sql =
        d == Dialect.POSTGRESQL
            ? "SELECT pg_try_advisory_lock(" + LOCK_SPACE + ", hashtext(?))"
            : "SELECT GET_LOCK(SHA1(?), 0) = 1";
    return queryBoolean(c, sql, name);
  }

  private static boolean heldElsewhere(Connection c, Dialect d, String name) throws SQLException {
    if (d == Dialect.POSTGRESQL) {
      boolean shared =
          queryBoolean(
              c, "SELECT pg_try_advisory_lock_shared(" + LOCK_SPACE + ", hashtext(?))", name);
      if (shared) {
        queryBoolean(c, "SELECT pg_advisory_unlock_shared(" + LOCK_SPACE + ", hashtext(?))", name);
      }
      return !shared;
    }
    return queryBoolean(c, "SELECT IS_USED_LOCK(SHA1(?)) IS NOT NULL", name);
  }

  private static boolean queryBoolean(Connection c, String sql, String arg) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, arg);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getBoolean(1);
      }
    }
  }

  /** Releases the lock (a user's pool gets the connection back without it) and the connection. */
  @Override
  public synchronized void close() {
    Dedicated d = held;
    held = null;
    if (d == null) {
      return;
    }
    try {
      String sql =
          dialect == Dialect.POSTGRESQL
              ? "SELECT pg_advisory_unlock(" + LOCK_SPACE + ", hashtext(?))"
              : "SELECT RELEASE_LOCK(SHA1(?))";
      queryBoolean(d.connection(), sql, name);
    } catch (SQLException | RuntimeException e) {
      log.debug("releasing the lock of tables {} failed", tables, e);
    }
    giveBack(d);
  }
}
