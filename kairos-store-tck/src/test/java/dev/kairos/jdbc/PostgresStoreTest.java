package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The store contract on PostgreSQL, in a schema of this class's own. */
class PostgresStoreTest extends JdbcStoreContract {
  @RegisterExtension static final PostgresTestDatabase db = PostgresTestDatabase.create();

  @Override
  protected TestDatabase database() {
    db.assumeReachable();
    return db;
  }

  @Test
  void of_usersDataSource_detectsPostgresAndIsNotClosed() {
    try (HikariDataSource ds = db.dataSource("kairos-of-test", 2)) {
      JdbcStore s = JdbcStore.builder().dataSource(ds).tablePrefix(nextPrefix()).build();
      s.open();
      assertThat(s.toString()).startsWith("JdbcStore[postgresql data source ");
      s.close();

      assertThat(ds.isClosed()).isFalse();
    }
  }

  @Test
  void toString_namesUrlAndPrefix() {
    JdbcStore s =
        JdbcStore.builder()
            .url(db.url() + "&password=secret")
            .user("postgres")
            .tablePrefix("k_")
            .build();

    assertThat(s.toString())
        .isEqualTo("JdbcStore[" + db.url() + "&password=***, prefix k_]")
        .doesNotContain("secret");
  }
}
