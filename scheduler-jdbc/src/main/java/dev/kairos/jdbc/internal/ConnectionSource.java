package dev.kairos.jdbc.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.StoreException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * Where the store gets connections: a HikariCP pool it makes (and closes) from a URL, or the user's
 * own data source (never closed by the store).
 */
public final class ConnectionSource {
  private final DataSource given;
  private final HikariConfig poolConfig;
  private final String description;
  private HikariDataSource pool;

  private ConnectionSource(DataSource given, HikariConfig poolConfig, String description) {
    this.given = given;
    this.poolConfig = poolConfig;
    this.description = description;
  }

  /** The user's data source, used as it is. */
  public static ConnectionSource of(DataSource dataSource) {
    return new ConnectionSource(dataSource, null, "data source " + dataSource);
  }

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
    if (url.startsWith("jdbc:postgresql:") && !url.contains("reWriteBatchedInserts")) {
      // The driver sends a batch of INSERTs as multi-row INSERTs (scheduleAll: about twice as
      // fast); a URL that sets the property itself keeps its value.
      c.addDataSourceProperty("reWriteBatchedInserts", "true");
    }
    return new ConnectionSource(null, c, description);
  }

  /** The data source; makes the pool on the first call. */
  public synchronized DataSource open() {
    if (given != null) {
      return given;
    }
    if (pool == null) {
      try {
        pool = new HikariDataSource(poolConfig);
      } catch (RuntimeException e) {
        throw new StoreException("opening a connection pool to " + description + " failed", e);
      }
    }
    return pool;
  }

  /**
   * A connection of its own, outside the pool when the store made the pool (same URL and
   * credentials); from the user's data source otherwise, which then lends it for as long as the
   * caller keeps it. The caller closes it.
   */
  public Connection dedicated() throws SQLException {
    if (given != null) {
      return given.getConnection();
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
