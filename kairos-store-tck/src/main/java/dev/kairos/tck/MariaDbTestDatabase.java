package dev.kairos.tck;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

/**
 * A database of its own ({@code kairos_<random>}) in the MariaDB at 127.0.0.1:3306 (user {@code
 * root}, empty password) for one test class: created by {@link #create()} in {@code @BeforeAll},
 * dropped by {@link #close()} in {@code @AfterAll}. If the server is unreachable, {@link
 * #assumeReachable()} (called before each test) skips the test with a message saying so; in CI (the
 * environment variable {@code CI} set, and not to {@code false}), {@link #create()} fails instead.
 */
public final class MariaDbTestDatabase implements TestDatabase, AutoCloseable {
  /** The server, without a database. */
  public static final String SERVER = "jdbc:mariadb://127.0.0.1:3306/";

  /** The user the tests connect as. */
  public static final String USER = "root";

  private final String database;

  /** Why the server cannot be used, or null if it can. */
  private final String unreachable;

  /** Session variables the driver sets at connect ({@code a=1,b='x'}), or null for none. */
  private final String sessionVariables;

  private MariaDbTestDatabase(String database, String unreachable) {
    this(database, unreachable, null);
  }

  private MariaDbTestDatabase(String database, String unreachable, String sessionVariables) {
    this.database = database;
    this.unreachable = unreachable;
    this.sessionVariables = sessionVariables;
  }

  /**
   * This database, reached by connections whose session {@code sql_mode} is {@code mode} (set by
   * the driver at connect), as a server configured so would make them. Closing either drops it.
   *
   * @param mode the comma-separated modes, for example {@code "ANSI_QUOTES,NO_BACKSLASH_ESCAPES"}
   * @return the same database, another URL
   */
  public MariaDbTestDatabase withSqlMode(String mode) {
    if (!mode.matches("[A-Z_,]*")) {
      throw new IllegalArgumentException("not an sql_mode list: " + mode);
    }
    return withSessionVariables("sql_mode='" + mode + "'");
  }

  /**
   * This database, reached by connections on which the driver sets {@code variables} at connect
   * (for example {@code "wait_timeout=1"}), as a server configured so would set them. Closing
   * either drops it.
   *
   * @param variables comma-separated assignments of session variables
   * @return the same database, another URL
   */
  public MariaDbTestDatabase withSessionVariables(String variables) {
    if (!variables.matches("[a-z_]+=('[A-Z_,]*'|[0-9]+)(,[a-z_]+=('[A-Z_,]*'|[0-9]+))*")) {
      throw new IllegalArgumentException("not a list of session variables: " + variables);
    }
    return new MariaDbTestDatabase(database, unreachable, variables);
  }

  /**
   * Creates a fresh database {@code kairos_<random>}.
   *
   * @return the new database
   */
  public static MariaDbTestDatabase create() {
    String name = "kairos_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(SERVER + "test", properties());
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
      return new MariaDbTestDatabase(name, null);
    } catch (SQLException e) {
      String why = "MariaDB at 127.0.0.1:3306 (user root) is unreachable: " + e;
      return new MariaDbTestDatabase(name, Unreachable.skipOrFail(why, e));
    }
  }

  /** Skips the calling test if the server was unreachable. */
  public void assumeReachable() {
    Unreachable.assume(unreachable);
  }

  /**
   * The JDBC URL of this database.
   *
   * @return the URL
   */
  public String url() {
    return SERVER
        + database
        + (sessionVariables == null ? "" : "?sessionVariables=" + sessionVariables);
  }

  /**
   * The database's name.
   *
   * @return the name
   */
  public String name() {
    return database;
  }

  @Override
  public JdbcStore.Builder builder() {
    return JdbcStore.builder().url(url()).user(USER).poolSize(2);
  }

  /**
   * A pool of the test's own.
   *
   * @param poolName the pool's name, shown in its logs
   * @param size the pool's maximum connections
   * @return the pool; the caller closes it
   */
  public HikariDataSource dataSource(String poolName, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url());
    c.setUsername(USER);
    c.setMaximumPoolSize(size);
    c.setPoolName(poolName);
    c.setConnectionTimeout(3_000);
    return new HikariDataSource(c);
  }

  @Override
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), properties());
  }

  private static Properties properties() {
    Properties p = new Properties();
    p.setProperty("user", USER);
    p.setProperty("password", "");
    p.setProperty("connectTimeout", "3000");
    return p;
  }

  /**
   * Ends ({@code KILL CONNECTION}) every connection whose current database is this one, except the
   * caller's own, as a server restart or a network fault would end them. MariaDB's process list has
   * no application names: a test tells its store's connections apart by their database, or by their
   * user ({@link #killConnectionsOf(String)}).
   *
   * @return how many connections were ended
   */
  public int killConnections() {
    return kill("DB = ?", database);
  }

  /**
   * Ends ({@code KILL CONNECTION}) every connection of this user, except the caller's own.
   *
   * @param user the user whose connections to end
   * @return how many connections were ended
   */
  public int killConnectionsOf(String user) {
    return kill("USER = ?", user);
  }

  private int kill(String condition, String value) {
    String sql =
        "SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND "
            + condition;
    try (Connection c = connect()) {
      List<Long> ids = new ArrayList<>();
      try (PreparedStatement p = c.prepareStatement(sql)) {
        p.setString(1, value);
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            ids.add(rs.getLong(1));
          }
        }
      }
      int killed = 0;
      for (long id : ids) {
        try (Statement s = c.createStatement()) {
          s.execute("KILL CONNECTION " + id);
          killed++;
        } catch (SQLException gone) {
          // the connection closed meanwhile (unknown thread id)
        }
      }
      return killed;
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Drops the database and everything in it. */
  @Override
  public void close() {
    if (unreachable == null) {
      execute("DROP DATABASE IF EXISTS " + database);
    }
  }
}
