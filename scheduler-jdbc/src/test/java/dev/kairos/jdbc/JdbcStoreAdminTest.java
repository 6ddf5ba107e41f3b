package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.UnreadableJob;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * What the CLI's {@code doctor} reads: unreadable rows (through the SPI) and the schema version.
 */
class JdbcStoreAdminTest {

  @Test
  void unreadable_namesEachBadRowWithItsReason_andLeavesGoodOnesOut() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:admin-test;DB_CLOSE_DELAY=-1");
    try (JdbcStore facade = JdbcStore.of(ds)) {
      JobStore store = facade.jobStore();
      for (String k : new String[] {"a", "b", "c"}) {
        store.upsert(
            JobRecord.fresh(
                JobSpec.named(k).handler("h").fixedRate(Duration.ofMinutes(1)),
                Instant.parse("2026-01-05T00:00:00Z")));
      }
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        st.execute("UPDATE kairos_jobs SET schedule_kind = 'BOGUS' WHERE job_key = 'b'");
        st.execute("UPDATE kairos_jobs SET state = 'DANCING' WHERE job_key = 'c'");
      }
      List<UnreadableJob> unreadable = store.unreadable();
      assertThat(unreadable).extracting(UnreadableJob::key).containsExactly("b", "c");
      assertThat(unreadable.get(0).reason()).contains("unknown schedule_kind 'BOGUS'");
      assertThat(unreadable.get(1).reason()).contains("unknown state 'DANCING'");
      assertThat(store.findAll()).extracting(JobRecord::key).containsExactly("a");
    } finally {
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        st.execute("DROP ALL OBJECTS");
      }
    }
  }

  @Test
  void schemaVersion_isTheLatestMigration() {
    assertThat(JdbcStore.schemaVersion()).isEqualTo(14);
  }
}
