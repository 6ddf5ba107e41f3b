package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.StoreException;
import dev.kairos.tck.PostgresTestDatabase;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: connections cut while {@code open()} creates the tables (a database restart or a
 * network fault during the first start, or during an upgrade) leave a schema the next {@code
 * open()} completes. Before, Flyway committed a script's DDL and recorded it in its history on two
 * connections, one after the other: a cut between them left the DDL applied and unrecorded, and
 * every later open failed on it ({@code column "kind" of relation "kairos_backfill" already
 * exists}), for good. Now the script and its history row commit in one transaction.
 */
class MigrationCutTest {
  @Test
  void commitOfAScriptCut_theNextOpenCompletesTheSchema() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      try (AnswerDroppingProxy proxy =
          LostAnswerOnPostgresTest.proxyTo(PostgresTestDatabase.SERVER)) {
        // V10's script reached the server; the answer to its COMMIT is lost
        proxy.dropAnswerTo("ADD COLUMN\n  kind", "COMMIT");
        try (JdbcStore cut =
            JdbcStore.builder()
                .url(LostAnswerOnPostgresTest.throughProxy(db, proxy))
                .user(PostgresTestDatabase.USER)
                .password(PostgresTestDatabase.PASSWORD)
                .poolSize(2)
                .build()) {
          assertThatThrownBy(cut::open).isInstanceOf(StoreException.class);
        }
        assertThat(proxy.dropped).hasValue(1);

        try (JdbcStore again = db.builder().build()) {
          again.open(); // threw before: column "kind" of relation "kairos_backfill" already exists
        }
      }
    }
  }
}
