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
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A schema of its own in the PostgreSQL at 127.0.0.1:5432 (database {@code test}, user {@code
 * postgres}, trust authentication) for one test class: {@code @RegisterExtension static final
 * PostgresTestDatabase db = PostgresTestDatabase.create();} creates it when the class is
 * initialized and drops it ({@link #close()}) after the class's tests. If the server is
 * unreachable, {@link #assumeReachable()} (called before each test) skips the test with a message
 * saying so; in CI (the environment variable {@code CI} set, and not to {@code false}), {@link
 * #create()} fails instead.
 *
 * <p>Another server: set {@code KAIROS_TEST_PG_URL} (a JDBC URL), {@code KAIROS_TEST_PG_USER} and
 * {@code KAIROS_TEST_PG_PASSWORD}.
 */
public final class PostgresTestDatabase implements TestDatabase, AutoCloseable, AfterAllCallback {
  /** The server and database ({@code KAIROS_TEST_PG_URL} overrides). */
  public static final String SERVER =
      env("KAIROS_TEST_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test");

  /** The user the tests connect as ({@code KAIROS_TEST_PG_USER} overrides). */
  public static final String USER = env("KAIROS_TEST_PG_USER", "postgres");

  /** The password ({@code KAIROS_TEST_PG_PASSWORD}), or null for trust authentication. */
  public static final String PASSWORD = env("KAIROS_TEST_PG_PASSWORD", null);

  private static String env(String name, String otherwise) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? otherwise : v;
  }

  private final String schema;

  /** Why the server cannot be used, or null if it can. */
  private final String unreachable;

  private PostgresTestDatabase(String schema, String unreachable) {
    this.schema = schema;
    this.unreachable = unreachable;
  }

  /**
   * Creates a fresh schema {@code kairos_test_<random>}.
   *
   * @return the new schema
   */
  public static PostgresTestDatabase create() {
    String schema = "kairos_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(SERVER, properties("kairos-test-setup"));
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
      return new PostgresTestDatabase(schema, null);
    } catch (SQLException e) {
      String why =
          "PostgreSQL at "
              + SERVER
              + " (user "
              + USER
              + ", override with KAIROS_TEST_PG_URL/_USER/_PASSWORD) is unreachable: "
              + e;
      return new PostgresTestDatabase(schema, Unreachable.skipOrFail(why, e));
    }
  }

  /** Skips the calling test if the server was unreachable. */
  public void assumeReachable() {
    Unreachable.assume(unreachable);
  }

  /**
   * The JDBC URL of this schema.
   *
   * @return the URL
   */
  public String url() {
    return SERVER + (SERVER.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  /**
   * The schema's name.
   *
   * @return the name
   */
  public String schema() {
    return schema;
  }

  @Override
  public JdbcStore.Builder builder() {
    return JdbcStore.builder().url(url()).user(USER).password(PASSWORD).poolSize(2);
  }

  /**
   * This schema as seen by sessions whose default isolation level is {@code level} (as on a
   * database or role whose {@code default_transaction_isolation} an administrator has set): the URL
   * of its stores asks the server for that default when each connection starts.
   *
   * @param level a value of {@code default_transaction_isolation}, e.g. {@code serializable} or
   *     {@code repeatable read}
   * @return the view; closing this schema still drops it
   */
  public TestDatabase withDefaultIsolation(String level) {
    String option =
        "-c default_transaction_isolation=" + level.replace(" ", "\\ "); // a space escaped
    String levelUrl =
        url()
            + "&options="
            + java.net.URLEncoder.encode(option, java.nio.charset.StandardCharsets.UTF_8);
    PostgresTestDatabase self = this;
    return new TestDatabase() {
      @Override
      public JdbcStore.Builder builder() {
        return JdbcStore.builder().url(levelUrl).user(USER).password(PASSWORD).poolSize(2);
      }

      @Override
      public Connection connect() throws SQLException {
        return self.connect();
      }
    };
  }

  /**
   * A pool of the test's own whose connections carry this application name.
   *
   * @param applicationName the {@code ApplicationName} of the connections
   * @param size the pool's maximum connections
   * @return the pool; the caller closes it
   */
  public HikariDataSource dataSource(String applicationName, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url());
    c.setUsername(USER);
    c.setPassword(PASSWORD);
    c.setMaximumPoolSize(size);
    c.setPoolName(applicationName);
    c.addDataSourceProperty("ApplicationName", applicationName);
    c.setConnectionTimeout(3_000);
    return new HikariDataSource(c);
  }

  @Override
  public Connection connect() throws SQLException {
    Properties p = properties("kairos-test");
    p.setProperty("currentSchema", schema);
    return DriverManager.getConnection(SERVER, p);
  }

  private static Properties properties(String applicationName) {
    Properties p = new Properties();
    p.setProperty("user", USER);
    if (PASSWORD != null) {
      p.setProperty("password", PASSWORD);
    }
    p.setProperty("ApplicationName", applicationName);
    p.setProperty("connectTimeout", "3");
    return p;
  }

  /**
   * Terminates ({@code pg_terminate_backend}) every connection to this database that carries this
   * application name, as a server restart or a network fault would end them.
   *
   * @param applicationName the {@code ApplicationName} of the connections to end
   * @return how many connections were terminated
   */
  public int terminateConnections(String applicationName) {
    String sql =
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            + " AND application_name = ?";
    try (Connection c = connect();
        PreparedStatement p = c.prepareStatement(sql)) {
      p.setString(1, applicationName);
      int n = 0;
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          n += rs.getBoolean(1) ? 1 : 0;
        }
      }
      return n;
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /**
   * A database of its own on this server, for a test that needs one made otherwise than {@code
   * test} (an encoding, a collation): {@code CREATE DATABASE <prefix><random> <options>}, dropped
   * (its connections ended) when the returned handle closes.
   *
   * @param prefix the start of the database's name, e.g. {@code kairos_enc_}
   * @param options what follows the name in {@code CREATE DATABASE}, e.g. {@code ENCODING 'LATIN1'
   *     TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'}
   * @return the database: its name and JDBC URL
   * @throws SQLException if the server refuses to create it
   */
  public OwnDatabase ownDatabase(String prefix, String options) throws SQLException {
    String name = prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " " + options);
    }
    int q = SERVER.indexOf('?');
    String path = q < 0 ? SERVER : SERVER.substring(0, q);
    String url =
        path.substring(0, path.lastIndexOf('/') + 1) + name + (q < 0 ? "" : SERVER.substring(q));
    return new OwnDatabase(this, name, url);
  }

  /**
   * A database made by {@link #ownDatabase}; closing it drops it.
   *
   * @param server the server it was made on
   * @param name its name
   * @param url its JDBC URL (the server's, with this database)
   */
  public record OwnDatabase(PostgresTestDatabase server, String name, String url)
      implements AutoCloseable {
    /** Drops the database, ending its connections. */
    @Override
    public void close() throws SQLException {
      try (Connection c = server.connect();
          Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      }
    }
  }

  /** Drops the schema and everything in it. */
  @Override
  public void close() {
    if (unreachable == null) {
      execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  /** Drops the schema after the tests of the class that registered this as an extension. */
  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }
}
