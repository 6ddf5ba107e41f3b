package dev.kairos.jdbc.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.StoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the store gets connections: a HikariCP pool it makes (and closes) from a URL, or the user's
 * own data source (never closed by the store).
 */
public final class ConnectionSource {
  private static final Logger log = LoggerFactory.getLogger(ConnectionSource.class);

  private final DataSource given;
  private final HikariConfig poolConfig;
  private final String description;
  private final Runnable beforePool;
  private final BooleanSupplier callerTransactionOpen;
  private HikariDataSource pool;

  private ConnectionSource(DataSource given, HikariConfig poolConfig, String description) {
    this(given, poolConfig, description, null, null);
  }

  private ConnectionSource(
      DataSource given,
      HikariConfig poolConfig,
      String description,
      Runnable beforePool,
      BooleanSupplier callerTransactionOpen) {
    this.given = given;
    this.poolConfig = poolConfig;
    this.description = description;
    this.beforePool = beforePool;
    this.callerTransactionOpen = callerTransactionOpen;
  }

  /**
   * This source, with a test of whether the calling thread has a transaction open that a connection
   * of the source belongs to (see {@link StoreConnections}); null: never.
   */
  public ConnectionSource joining(BooleanSupplier callerTransactionOpen) {
    if (callerTransactionOpen == null
        && given != null
        && extendsAny(given.getClass(), java.util.Set.of(SPRING_TRANSACTION_AWARE))) {
      log.warn(
          "{} hands out the connection of the caller's Spring transaction, but the store was not"
              + " told when one is open (JdbcStore.Builder.joinCallerTransactions): a store call"
              + " inside such a transaction switches its connection to auto-commit, committing"
              + " the transaction's work so far. The Kairos Spring Boot starter sets both.",
          given.getClass().getName());
    }
    return new ConnectionSource(given, poolConfig, description, beforePool, callerTransactionOpen);
  }

  /**
   * The JDBC URL the connections come from as it was configured, settings included, when the source
   * tells it: the store's own pool, a HikariCP pool (also behind a wrapper that unwraps to it),
   * H2's data source; else null. (The driver's metadata URL drops H2's settings, such as {@code
   * AUTO_SERVER=TRUE}.)
   */
  public String configuredUrl() {
    if (poolConfig != null && poolConfig.getJdbcUrl() != null) {
      return poolConfig.getJdbcUrl();
    }
    DataSource ds = given != null ? given : poolConfig != null ? poolConfig.getDataSource() : null;
    return ds == null ? null : urlOf(ds);
  }

  private static String urlOf(DataSource ds) {
    HikariDataSource hikari = hikari(ds);
    if (hikari != null) {
      return hikari.getJdbcUrl();
    }
    try {
      Class<?> h2 =
          Class.forName("org.h2.jdbcx.JdbcDataSource", false, ds.getClass().getClassLoader());
      if (ds.isWrapperFor(h2)) {
        return (String) h2.getMethod("getURL").invoke(ds.unwrap(h2));
      }
    } catch (SQLException | ReflectiveOperationException | RuntimeException | LinkageError e) {
      // the source does not tell
    }
    return null;
  }

  /** The test given to {@link #joining}, or null. */
  public BooleanSupplier callerTransactionOpen() {
    return callerTransactionOpen;
  }

  /**
   * The user's data source: used as it is if it pools connections; wrapped in a pool of {@code
   * poolSize} connections that the store makes and closes if it is one of the drivers' plain data
   * sources ({@link #UNPOOLED}), which open a new connection for every call.
   */
  public static ConnectionSource of(DataSource dataSource, int poolSize) {
    if (!unpooled(dataSource.getClass())) {
      return new ConnectionSource(dataSource, null, "data source " + dataSource);
    }
    HikariConfig c = new HikariConfig();
    c.setDataSource(dataSource);
    c.setMaximumPoolSize(poolSize);
    c.setMinimumIdle(Math.min(2, poolSize));
    c.setPoolName("kairos-store");
    c.setTransactionIsolation(READ_COMMITTED);
    if (extendsAny(dataSource.getClass(), MYSQL_FAMILY)) {
      c.setConnectionInitSql(MYSQL_FAMILY_SESSION_SETUP);
    }
    if (extendsAny(dataSource.getClass(), PG_FAMILY)) {
      c.setConnectionInitSql(PG_SESSION_SETUP);
    }
    if (extendsAny(dataSource.getClass(), java.util.Set.of("org.h2.jdbcx.JdbcDataSource"))) {
      c.setExceptionOverride(new H2BrokenConnections());
    }
    log.info(
        "{} opens a new connection for every call; the store pools it ({} connections, closed"
            + " with the store, the data source itself is not closed)",
        dataSource.getClass().getName(),
        poolSize);
    return new ConnectionSource(null, c, "data source " + dataSource);
  }

  /**
   * Run on each connection of a pool the store makes for PostgreSQL. The store's transactions hold
   * no user code, so none of them is idle for long between two statements, unless its process is
   * frozen (a stop signal, a long GC pause, a suspended VM) in the middle. Such a transaction would
   * keep its row locks for as long as the freeze, and a claim or recovery of that row by another
   * instance would wait on it past the lease (a soak froze an instance for lease + 3 s mid
   * write-back: the job's next fire was recovered 8.08 s after the freeze, over the lease + lease/3
   * bound). The server ends such a session after 2 s, which frees its locks; the frozen instance
   * finds its connection closed when it resumes, and retries as it does after any lost connection.
   */
  static final String PG_SESSION_SETUP =
      "SET idle_in_transaction_session_timeout = " + Timeouts.IDLE_IN_TRANSACTION_MS;

  /**
   * {@link #PG_SESSION_SETUP} for MariaDB: its {@code idle_transaction_timeout} (seconds) does the
   * same. MySQL has no such setting, and the same driver URL may reach either server: MariaDB runs
   * the text of a {@code /*M! ...}{@code *}{@code /} comment, MySQL skips it and sets only the
   * harmless user variable.
   */
  static final String MYSQL_FAMILY_SESSION_SETUP =
      "SET @kairos_pool = 1 /*M!, SESSION idle_transaction_timeout = "
          + Timeouts.IDLE_IN_TRANSACTION_MS / 1000
          + " */";

  /**
   * HikariCP's name of the isolation level of every store transaction ({@link Dialect#isolation}).
   */
  private static final String READ_COMMITTED = "TRANSACTION_READ_COMMITTED";

  /** See {@link #PG_SESSION_SETUP}. */
  static final class Timeouts {
    /** How long a transaction of the store's own pool may be idle on PostgreSQL. */
    static final int IDLE_IN_TRANSACTION_MS = 2000;

    /**
     * MariaDB's and MySQL's {@code wait_timeout} on a connection kept for long ({@link #keepOpen}):
     * one year, the largest both servers take.
     */
    static final int KEPT_SESSION_WAIT_S = 31_536_000;

    private Timeouts() {}
  }

  /** True if the class is, or extends, one of {@link #UNPOOLED}. */
  static boolean unpooled(Class<?> type) {
    return extendsAny(type, UNPOOLED);
  }

  /** True if the class is, or extends, a class named in {@code names}. */
  private static boolean extendsAny(Class<?> type, java.util.Set<String> names) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (names.contains(c.getName())) {
        return true;
      }
    }
    return false;
  }

  /** The plain data sources of {@link #UNPOOLED} that reach PostgreSQL. */
  private static final java.util.Set<String> PG_FAMILY =
      java.util.Set.of(
          "org.postgresql.ds.PGSimpleDataSource", "org.postgresql.jdbc3.Jdbc3SimpleDataSource");

  /** Spring's data source that hands out the connection of the thread's open transaction. */
  private static final String SPRING_TRANSACTION_AWARE =
      "org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy";

  /** The plain data sources of {@link #UNPOOLED} that reach MariaDB or MySQL. */
  private static final java.util.Set<String> MYSQL_FAMILY =
      java.util.Set.of("org.mariadb.jdbc.MariaDbDataSource", "com.mysql.cj.jdbc.MysqlDataSource");

  /**
   * Data sources of the supported drivers (and Spring's) that do not pool: each {@code
   * getConnection()} opens a connection to the server. Passed to the store as they are, they cost a
   * connection per store call (2,397 in 25 s in one measured run, with fires seconds late).
   */
  static final java.util.Set<String> UNPOOLED =
      java.util.Set.of(
          "org.postgresql.ds.PGSimpleDataSource",
          "org.postgresql.jdbc3.Jdbc3SimpleDataSource",
          "org.h2.jdbcx.JdbcDataSource",
          "org.mariadb.jdbc.MariaDbDataSource",
          "com.mysql.cj.jdbc.MysqlDataSource",
          "org.springframework.jdbc.datasource.DriverManagerDataSource",
          "org.springframework.jdbc.datasource.SimpleDriverDataSource");

  /**
   * A pool the store makes at {@link #open()} and closes at {@link #close()}.
   *
   * @param description how the store names this source in its {@code toString()}
   */
  public static ConnectionSource pool(
      String url, String user, String password, int poolSize, String description) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(poolSize);
    c.setMinimumIdle(Math.min(2, poolSize));
    c.setPoolName("kairos-store");
    c.setTransactionIsolation(READ_COMMITTED);
    if (url.startsWith("jdbc:postgresql:") && !url.contains("reWriteBatchedInserts")) {
      // The driver sends a batch of INSERTs as multi-row INSERTs (scheduleAll: about twice as
      // fast); a URL that sets the property itself keeps its value.
      c.addDataSourceProperty("reWriteBatchedInserts", "true");
    }
    if (url.startsWith("jdbc:postgresql:") && !url.contains("binaryTransfer")) {
      // Every instant column is NUMERIC(28,9). In binary form the driver decodes each value with a
      // BigInteger multiplication per four digits (about 9% of a clustered instance's CPU at a
      // steady 1,000 fires/s); as text it parses the digits into a long. A URL that sets either
      // binaryTransfer property itself keeps its own choice.
      c.addDataSourceProperty("binaryTransferDisable", "NUMERIC");
    }
    if (url.startsWith("jdbc:postgresql:")) {
      c.setConnectionInitSql(PG_SESSION_SETUP);
    }
    if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
      c.setConnectionInitSql(MYSQL_FAMILY_SESSION_SETUP);
    }
    if (url.startsWith("jdbc:h2:")) {
      c.setExceptionOverride(new H2BrokenConnections());
    }
    return new ConnectionSource(null, c, description);
  }

  /**
   * The pool of an embedded H2 file ({@code base} is its name without {@code .mv.db}): at {@link
   * #open()}, before the pool starts, a header a kill left naming an overwritten chunk is made to
   * name the newest one ({@link H2HeaderRepair}), then the file is compacted if it is large and
   * mostly unused ({@link H2Compaction}).
   */
  public static ConnectionSource h2File(String url, Path base, int poolSize, String description) {
    ConnectionSource p = pool(url, null, null, poolSize, description);
    Path file = Path.of(base + ".mv.db");
    return new ConnectionSource(
        null,
        p.poolConfig,
        description,
        () -> {
          H2HeaderRepair.repairIfStale(file);
          H2Compaction.compactIfSparse(url, file);
        },
        null);
  }

  /**
   * True if the connections come from a pool the store made (and closes), configured with the
   * isolation level of its transactions (READ COMMITTED, see {@link StoreConnections}).
   */
  public boolean ownPool() {
    return given == null;
  }

  /**
   * Most connections the pool hands out: the store's own pool's size, a user's HikariCP pool's, or
   * 0 if unknown (another pooling data source).
   */
  public int poolSize() {
    if (given == null) {
      return poolConfig.getMaximumPoolSize();
    }
    return given instanceof HikariDataSource h ? h.getMaximumPoolSize() : 0;
  }

  /**
   * After H2 reported a connection dead ({@link H2BrokenConnections}): a user's HikariCP pool
   * (which has no such rule unless its owner set one) retires its connections, idle ones at once
   * and those in use when they come back, so that it does not hand out the dead ones again while it
   * is busy. The store's own pool evicts the dead connection itself; other pools are left alone.
   */
  public void retireUsersConnections() {
    HikariDataSource hikari = given == null ? null : hikari(given);
    var mx = hikari == null ? null : hikari.getHikariPoolMXBean();
    try {
      if (mx != null) {
        mx.softEvictConnections();
      }
    } catch (RuntimeException e) {
      log.debug("retiring the connections of {} failed", description, e);
    }
  }

  /** The HikariCP pool {@code ds} is or unwraps to (a Spring proxy, say), else null. */
  private static HikariDataSource hikari(DataSource ds) {
    try {
      return ds.isWrapperFor(HikariDataSource.class) ? ds.unwrap(HikariDataSource.class) : null;
    } catch (SQLException | RuntimeException e) {
      return null; // the wrapper does not tell
    }
  }

  /** The data source; makes the pool on the first call. */
  public synchronized DataSource open() {
    if (given != null) {
      return given;
    }
    if (pool == null) {
      if (poolConfig.getJdbcUrl() != null) {
        Drivers.require(poolConfig.getJdbcUrl());
      }
      if (beforePool != null) {
        beforePool.run();
      }
      try {
        pool = new HikariDataSource(poolConfig);
      } catch (RuntimeException e) {
        if (h2FileLocked(e)) {
          throw new StoreException(
              "opening a connection pool to "
                  + description
                  + " failed: the H2 file is open in another process (the application, a kairos"
                  + " dashboard or CLI): an embedded H2 file has one process at a time; stop it,"
                  + " or share the tables through an H2 server or PostgreSQL",
              e);
        }
        throw new StoreException("opening a connection pool to " + description + " failed", e);
      }
    }
    return pool;
  }

  /** True if H2 refused the connection because another process has the database file open. */
  private static boolean h2FileLocked(Throwable e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof java.sql.SQLException x && x.getErrorCode() == H2_DATABASE_ALREADY_OPEN) {
        return true;
      }
    }
    return false;
  }

  /**
   * H2's error code for a database file another process holds ("Database may be already in use").
   */
  private static final int H2_DATABASE_ALREADY_OPEN = 90020;

  /**
   * A connection of its own, in auto-commit (it holds no transaction open however long it is kept):
   * outside the pool when the store made the pool (same URL and credentials); from the user's data
   * source otherwise, which then lends it for as long as the caller keeps it. The caller closes it,
   * which gives it back with its own auto-commit setting.
   */
  public Dedicated dedicated() throws SQLException {
    Connection c = connectionOfItsOwn();
    try {
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(true);
      return new Dedicated(c, autoCommit, keepOpen(c));
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * Turns off the server's timeout for idle sessions on a connection kept for long without a
   * statement: PostgreSQL's {@code idle_session_timeout} (14 and later; off by default, but a DBA
   * may set it for a database or role), MariaDB's and MySQL's {@code wait_timeout} (8 hours by
   * default). The server would otherwise end the session: the single-instance guard's lock would go
   * with it, silently, and the change listener would be reopened every time. Returns the statement
   * that gives the session its default back, or null if nothing was changed (another database,
   * PostgreSQL before 14, or the statement refused, logged at DEBUG: a proxy may refuse it).
   */
  static String keepOpen(Connection c) throws SQLException {
    java.sql.DatabaseMetaData md = c.getMetaData();
    Dialect dialect = Dialect.of(md); // from the metadata, no statement
    String set;
    String reset;
    if (dialect == Dialect.POSTGRESQL && md.getDatabaseMajorVersion() >= 14) {
      set = "SET idle_session_timeout = 0";
      reset = "RESET idle_session_timeout";
    } else if (dialect.mysqlFamily()) {
      set = "SET SESSION wait_timeout = " + Timeouts.KEPT_SESSION_WAIT_S;
      reset = "SET SESSION wait_timeout = @@GLOBAL.wait_timeout";
    } else {
      return null;
    }
    try (java.sql.Statement s = c.createStatement()) {
      s.execute(set);
    } catch (SQLException e) { // a proxy that refuses it, say: keep the connection as it is
      log.debug(
          "'{}' failed on a connection kept for long; the server may end it when idle", set, e);
      return null;
    }
    return reset;
  }

  /**
   * A connection from {@link #dedicated()}, in auto-commit while it is kept, the server's idle
   * timeout off ({@link #keepOpen}).
   *
   * @param connection the connection
   * @param autoCommit its own auto-commit setting, given back by {@link #close()} (a user's pool
   *     that does not reset session state lends it again as it was lent)
   * @param resetIdleTimeout the statement that gives the session its idle timeout back, or null
   */
  public record Dedicated(Connection connection, boolean autoCommit, String resetIdleTimeout)
      implements AutoCloseable {
    /** Gives the connection its own idle timeout and auto-commit setting back and closes it. */
    @Override
    public void close() throws SQLException {
      try (connection) {
        if (resetIdleTimeout != null && !connection.isClosed()) {
          try (java.sql.Statement s = connection.createStatement()) {
            s.execute(resetIdleTimeout);
          } catch (SQLException e) {
            // a broken connection: the pool discards it, and its setting with it
          }
        }
        if (!autoCommit) {
          connection.setAutoCommit(false);
        }
      }
    }
  }

  private Connection connectionOfItsOwn() throws SQLException {
    if (given != null) {
      return given.getConnection();
    }
    if (poolConfig.getDataSource() != null) {
      return poolConfig.getDataSource().getConnection();
    }
    Properties p = new Properties();
    if (poolConfig.getUsername() != null) {
      p.setProperty("user", poolConfig.getUsername());
    }
    if (poolConfig.getPassword() != null) {
      p.setProperty("password", poolConfig.getPassword());
    }
    return DriverManager.getConnection(poolConfig.getJdbcUrl(), p);
  }

  /** Closes the pool if the store made one; never the user's data source. */
  public synchronized void close() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }

  @Override
  public String toString() {
    return description;
  }
}
