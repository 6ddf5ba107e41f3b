package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.tck.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Instances opening one fresh PostgreSQL schema at the same moment create it once: Flyway's lock (a
 * session advisory lock, the migrations running on one connection) lets one apply the scripts and
 * the others find them applied.
 */
class PostgresOpenTogetherTest {
  @Test
  void fourStoresOpenAFreshSchemaAtOnce_eachOpens_andEveryScriptIsAppliedOnce() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      int n = 4;
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(n);
      List<JdbcStore> stores = new ArrayList<>();
      try {
        List<Future<?>> opens = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          JdbcStore s = db.builder().build();
          stores.add(s);
          opens.add(
              pool.submit(
                  () -> {
                    go.await();
                    s.open();
                    return null;
                  }));
        }
        go.countDown();
        for (Future<?> f : opens) {
          f.get(); // throws if an open failed
        }
      } finally {
        pool.shutdownNow();
        stores.forEach(JdbcStore::close);
      }
      try (Connection c = db.connect();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT count(*), count(DISTINCT version), max(CAST(version AS INT))"
                      + " FROM kairos_schema_history WHERE success AND version IS NOT NULL"
                      + " AND CAST(version AS INT) > 0")) {
        rs.next();
        assertThat(rs.getInt(1)).as("scripts applied").isEqualTo(rs.getInt(2));
        assertThat(rs.getInt(3)).isEqualTo(JdbcStore.schemaVersion());
      }
    }
  }
}
