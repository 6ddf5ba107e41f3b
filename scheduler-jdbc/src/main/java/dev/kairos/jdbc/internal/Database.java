package dev.kairos.jdbc.internal;

import dev.kairos.StoreException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.DateTimeException;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.SqlStatements;
import org.jdbi.v3.core.statement.TemplateEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's database: its connections, dialect and schema, opened once (explicitly or by the
 * first call) and closed once. Every call runs in a handle of its own and turns a failure of the
 * database into a {@link StoreException} saying what failed.
 */
public final class Database {
  /** Most runs of one transaction that deadlocks again and again. */
  static final int DEADLOCK_ATTEMPTS = 5;

  private static final Logger log = LoggerFactory.getLogger(Database.class);

  private final ConnectionSource source;
  private final String prefix;
  private final boolean createSchema;

  /** Null until opened, and again after close(). Written under {@code this}. */
  private volatile Jdbi jdbi;

  /** The dialect, once opened. Written under {@code this}. */
  private volatile Dialect dialect;

  /** What text columns hold, null for all of Unicode ({@link Dialect#textCharset}), once opened. */
  private volatile java.nio.charset.Charset textCharset;

  /** The largest statement the server takes ({@link Dialect#maxStatementBytes}), once opened. */
  private volatile long maxStatementBytes = Long.MAX_VALUE;

  /** The JDBC URL the database reports, once opened. Written under {@code this}. */
  private volatile String url;

  /** Set by close(); the database cannot be reopened. Guarded by {@code this}. */
  private boolean closed;

  /**
   * @param source where connections come from
   * @param prefix the (validated) table prefix
   * @param createSchema whether open() creates and upgrades the schema, or only checks it
   */
  public Database(ConnectionSource source, String prefix, boolean createSchema) {
    this.source = source;
    this.prefix = prefix;
    this.createSchema = createSchema;
  }

  /** Opens the source, detects the dialect, migrates or checks the schema. Idempotent. */
  public synchronized void open() {
    if (closed) {
      throw new IllegalStateException("store is closed: " + this);
    }
    if (jdbi != null) {
      return;
    }
    try {
      DataSource ds = source.open();
      Dialect d;
      int level;
      java.nio.charset.Charset charset;
      long maxStatement;
      try (Connection c = ds.getConnection()) { // one connection for all: answered from memory
        DatabaseMetaData md = c.getMetaData();
        d = Dialect.of(md);
        url = md.getURL();
        level = levelToSet(d, c);
        charset = d.textCharset(c); // PostgreSQL: one statement
        maxStatement = d.maxStatementBytes(c); // MariaDB, MySQL: one statement
      }
      Jdbi j = Jdbi.create(new StoreConnections(ds, level, source.callerTransactionOpen()));
      j.getConfig(SqlStatements.class).setTemplateEngine(TemplateEngine.NOP);
      if (createSchema) {
        if (source.poolSize() == 1) { // the store's pool or a user's HikariCP pool of one
          try (OneConnection one = new OneConnection(ds)) { // Flyway would wait for a second
            Migrations.migrate(one, d, prefix);
          }
        } else {
          Migrations.migrate(ds, d, prefix);
        }
      } else {
        Migrations.check(ds, d, prefix);
      }
      Migrations.checkWritable(j, prefix, source.toString());
      j.useHandle(
          h -> {
            d.warnIfCommitsLag(h);
            d.repairSequencesAfterCrash(h, prefix);
          });
      dialect = d;
      textCharset = charset;
      maxStatementBytes = maxStatement;
      jdbi = j;
    } catch (JdbiException | SQLException e) {
      source.close();
      throw new StoreException("opening " + this + " failed", e);
    } catch (RuntimeException e) {
      source.close();
      throw e;
    }
  }

  /**
   * The isolation level {@link StoreConnections} sets on each connection that has another, or -1
   * for none: none for the store's own pool, configured with it; on MariaDB and MySQL the driver
   * knows each connection's level without asking the server, so each is checked. On PostgreSQL and
   * H2, where asking costs a round trip (PostgreSQL, or H2 over TCP), a user's pool whose first
   * connection is at the level is taken to hand out all its connections so; otherwise each is
   * checked, set and set back, and a warning says how to spare those statements.
   */
  private int levelToSet(Dialect d, Connection first) throws SQLException {
    if (source.ownPool()) {
      return -1; // configured with it (ConnectionSource.pool, ConnectionSource.of)
    }
    if (d.mysqlFamily()) {
      return d.isolation();
    }
    int found = first.getTransactionIsolation();
    if (found == d.isolation()) {
      return -1;
    }
    log.warn(
        "{} hands out connections at isolation level {}; the store's transactions need READ"
            + " COMMITTED, so it sets that level on each connection it borrows and sets the"
            + " connection's own level back before returning it, up to three statements more a store"
            + " call: configure the pool with READ COMMITTED (HikariCP: transactionIsolation ="
            + " TRANSACTION_READ_COMMITTED) to spare them",
        source,
        levelName(found));
    return d.isolation();
  }

  /** The SQL name of a {@code java.sql.Connection} isolation level constant. */
  static String levelName(int level) {
    return switch (level) {
      case Connection.TRANSACTION_NONE -> "NONE";
      case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
      case Connection.TRANSACTION_READ_COMMITTED -> "READ COMMITTED";
      case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
      case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
      default -> String.valueOf(level);
    };
  }

  /** Closes the pool the store made, if any. Idempotent. */
  public synchronized void close() {
    closed = true;
    jdbi = null;
    source.close();
  }

  /** The dialect; opens the database if it is not open yet. */
  public Dialect dialect() {
    jdbi("detecting the database");
    return dialect;
  }

  /**
   * The characters the store's text columns hold, null for all of Unicode ({@link
   * Dialect#textCharset}); opens the database if needed.
   */
  public java.nio.charset.Charset textCharset() {
    jdbi("detecting the database's encoding");
    return textCharset;
  }

  /**
   * The largest statement the server accepts, in bytes ({@link Dialect#maxStatementBytes}, read at
   * open); opens the database if needed.
   */
  public long maxStatementBytes() {
    jdbi("asking the database for its statement size limit");
    return maxStatementBytes;
  }

  /** The JDBC URL the database reports (null if it reports none); opens it if needed. */
  public String url() {
    jdbi("reading the database URL");
    return url;
  }

  /** Runs {@code work} in auto-commit mode. */
  public <T> T withHandle(String what, HandleCallback<T, SQLException> work) {
    try {
      return jdbi(what).withHandle(work);
    } catch (JdbiException | SQLException e) {
      afterFailure(e);
      throw new StoreException(what + " failed", e);
    } catch (IllegalArgumentException | DateTimeException e) {
      throw new StoreException(what + " failed", e);
    } catch (AssertionError e) {
      throw driverAssertion(what, e);
    }
  }

  /**
   * Runs {@code work} in one transaction, committed if it returns, rolled back if it throws. A
   * transaction the database rolled back to break a deadlock is run again, up to {@value
   * #DEADLOCK_ATTEMPTS} times in all, so {@code work} must do nothing but its statements.
   */
  public <T> T inTransaction(String what, HandleCallback<T, SQLException> work) {
    return inTransactionJoining(what, (h, joined) -> work.withHandle(h));
  }

  /**
   * True if the calling thread has a transaction of the application's open that the store's calls
   * join ({@code JdbcStore.Builder.joinCallerTransactions}): a write made now commits or rolls back
   * with the application's, so it must be made on this thread, never handed to another.
   */
  public boolean callerTransactionOpen() {
    java.util.function.BooleanSupplier open = source.callerTransactionOpen();
    return open != null && open.getAsBoolean();
  }

  /** Work in a transaction that is told whether it joined one already open. */
  @FunctionalInterface
  public interface JoiningWork<T> {
    /**
     * @param joined true if the connection was in a transaction already (the application's, on a
     *     transaction-aware data source): then nothing here commits or rolls back
     */
    T run(Handle h, boolean joined) throws SQLException;
  }

  /**
   * {@link #inTransaction}, telling {@code work} whether its statements join a transaction that was
   * open on the connection before (the connection was not in auto-commit), which the caller, not
   * the store, commits.
   */
  public <T> T inTransactionJoining(String what, JoiningWork<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return jdbi(what)
            .withHandle(
                h -> {
                  boolean joined = h.isInTransaction();
                  return h.inTransaction(t -> work.run(t, joined));
                });
      } catch (JdbiException | SQLException e) {
        if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(e)) {
          afterFailure(e);
          throw new StoreException(what + " failed", e);
        }
        log.debug("{}: deadlock, attempt {} rolled back; running it again", what, attempt);
      } catch (IllegalArgumentException | DateTimeException e) {
        throw new StoreException(what + " failed", e);
      } catch (AssertionError e) {
        throw driverAssertion(what, e);
      }
    }
  }

  /**
   * Moves sequences a crash of an H2 database left behind their tables' values ({@link
   * Dialect#repairSequencesAfterCrash}); on other dialects does nothing. A failure is logged, never
   * thrown: the check is a repair on the side of the call that asked for it.
   */
  public void repairSequences() {
    if (dialect != Dialect.H2) {
      return;
    }
    try {
      jdbi("checking H2's sequences").useHandle(h -> dialect.repairSequencesAfterCrash(h, prefix));
    } catch (RuntimeException e) {
      log.debug("checking H2's sequences after a crash failed", e);
    }
  }

  /**
   * On H2, after a store call failed: a duplicate key may be a sequence a crash left behind ({@link
   * #repairSequences}, so that the caller's retry can succeed; not inside the caller's open
   * transaction, whose locks the repair would wait for), and an error of a dead connection (a
   * restarted server, an aborted session) has a user's HikariCP pool retire its connections ({@link
   * ConnectionSource#retireUsersConnections}).
   */
  private void afterFailure(Exception e) {
    if (dialect != Dialect.H2) {
      return;
    }
    if (hasSqlState(e, "23505") && !callerTransactionOpen()) {
      repairSequences();
    }
    if (H2BrokenConnections.dead(e)) {
      source.retireUsersConnections();
    }
  }

  /** True if {@code e} or one of its causes is an {@link SQLException} with one of these states. */
  private static boolean hasSqlState(Throwable e, String... states) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s
          && java.util.Arrays.asList(states).contains(s.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /**
   * A driver's own assertion that failed (only with {@code -ea}, as in tests): pgjdbc asserts that
   * a connection it is using is still open, which a terminated backend breaks. Treated as the store
   * failure it stands for, so it is retried like any other.
   */
  private static StoreException driverAssertion(String what, AssertionError e) {
    StackTraceElement[] trace = e.getStackTrace();
    boolean driver = trace.length > 0 && !trace[0].getClassName().startsWith("dev.kairos");
    if (!driver) {
      throw e;
    }
    return new StoreException(what + " failed: the driver's assertion " + e.getMessage(), e);
  }

  /**
   * True if the database rolled the transaction back to break a deadlock (SQLSTATE 40001, as
   * MariaDB reports it, or PostgreSQL's 40P01).
   */
  static boolean isDeadlock(Throwable e) {
    return hasSqlState(e, "40001", "40P01");
  }

  private Jdbi jdbi(String what) {
    Jdbi j = jdbi;
    if (j == null) {
      synchronized (this) {
        if (closed) {
          throw new IllegalStateException(what + ": the store is closed: " + this);
        }
        open();
        j = jdbi;
      }
    }
    return j;
  }

  /** The source, prefixed with the dialect once known unless the source names it already. */
  @Override
  public String toString() {
    Dialect d = dialect;
    String db = source.toString();
    return d == null || db.startsWith(d.toString()) ? db : d + " " + db;
  }
}
