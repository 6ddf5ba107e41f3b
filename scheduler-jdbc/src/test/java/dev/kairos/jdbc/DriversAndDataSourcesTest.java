package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.StoreException;
import dev.kairos.spi.JobRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drivers the application adds, and data sources that do not pool. */
class DriversAndDataSourcesTest {
  @TempDir Path dir;

  /** A URL whose driver is not on the class path fails open() naming the artifact to add. */
  @Test
  void open_driverMissing_namesTheMavenArtifactToAdd() {
    JdbcStore store = JdbcStore.builder().url("jdbc:mysql://127.0.0.1:1/app").build();

    assertThatThrownBy(store::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("no JDBC driver for jdbc:mysql://127.0.0.1:1/app")
        .hasMessageContaining("add the dependency com.mysql:mysql-connector-j");
  }

  @Test
  void open_unknownDatabaseUrl_saysWhichDatabasesAreSupported() {
    JdbcStore store = JdbcStore.builder().url("jdbc:nosuchdb://host/app?password=x").build();

    assertThatThrownBy(store::open)
        .isInstanceOf(StoreException.class)
        .hasMessage(
            "no JDBC driver on the class path accepts the URL jdbc:nosuchdb://host/app; the JDBC"
                + " store supports H2, PostgreSQL, MariaDB and MySQL");
  }

  /**
   * A driver's plain data source, which opens a connection per call, is pooled by the store: 200
   * store calls open at most the pool's connections, not 200 (H2 numbers its sessions).
   */
  @Test
  void of_unpooledDriverDataSource_isPooledByTheStore() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(JdbcStore.Builder.h2Url(dir.resolve("kairos")));
    JdbcStore store = JdbcStore.of(ds);
    try {
      store.open();
      int before = sessionId(ds);
      for (int i = 0; i < 100; i++) {
        store
            .jobStore()
            .upsert(
                JobRecord.fresh(
                    JobSpec.named("j" + i).handler("h").fixedRate(Duration.ofMinutes(1)),
                    Instant.parse("2026-01-05T02:00:00Z")));
        store.jobStore().find("j" + i);
      }

      assertThat(sessionId(ds) - before).isLessThanOrEqualTo(JdbcStore.DEFAULT_POOL_SIZE + 1);
    } finally {
      store.close();
    }
    try (Connection c = ds.getConnection()) { // the store closed its pool, not the data source
      assertThat(c.isValid(1)).isTrue();
    }
  }

  /** The id of a new session: H2 numbers sessions in the order they are opened. */
  private static int sessionId(JdbcDataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT SESSION_ID()")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
