package dev.kairos.tck;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Store outages over an H2 TCP server ({@link H2TcpServer}) with the application's own HikariCP
 * pool, configured as an application would (no rule of Kairos's about H2's errors): every session
 * of the pool's user is aborted, twice. H2 reports a dead session with an SQLSTATE HikariCP does
 * not take for a broken connection; the store then has the pool retire its connections, so firing
 * resumes.
 */
class H2ServerOutageTest extends OutageContract {
  private static H2TcpServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = H2TcpServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected DataSource dataSource(String name, int size) {
    HikariDataSource pool = new HikariDataSource();
    try {
      pool.setUsername(server.createAdmin(name));
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    pool.setJdbcUrl(server.url());
    pool.setPassword("");
    pool.setMaximumPoolSize(size);
    pool.setConnectionTimeout(3_000);
    pool.setPoolName(name);
    return pool;
  }

  @Override
  protected int killConnections(String name) {
    return server.abortSessionsOf(name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase());
  }
}
