package dev.kairos.jdbc;

import static dev.kairos.tck.JobStoreContract.T0;
import static dev.kairos.tck.JobStoreContract.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.BusinessCalendar;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.MariaDbTestDatabase;
import dev.kairos.tck.PostgresTestDatabase;
import dev.kairos.tck.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * {@code deleteCalendar} inside the application's own transaction ({@code joinCallerTransactions})
 * never leaves a job attached to a deleted calendar: not when the transaction's snapshot predates
 * the job (REPEATABLE READ), and not when the caller goes on and commits after the refusal. Before,
 * the calendar's row was deleted before the look for its users, which in the caller's transaction
 * nothing rolled back, and that look read the snapshot.
 */
class CalendarDeleteInCallerTransactionTest {

  @Test
  void postgresReadCommitted_refusedAndTheCallerCommitting_keepsTheCalendar() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      String message = deleteInCallerTransaction(db, Connection.TRANSACTION_READ_COMMITTED);
      assertThat(message).contains("'a'");
    }
  }

  @Test
  void postgresRepeatableRead_refusedNamingTheLevel_keepsTheCalendar() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      String message = deleteInCallerTransaction(db, Connection.TRANSACTION_REPEATABLE_READ);
      assertThat(message).contains("REPEATABLE READ").contains("'desk'");
    }
  }

  @Test
  void mariaDbRepeatableRead_refusedNamingTheJob_keepsTheCalendar() throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      String message = deleteInCallerTransaction(db, Connection.TRANSACTION_REPEATABLE_READ);
      assertThat(message).contains("'a'");
    }
  }

  /**
   * In a transaction of the application's at {@code level} whose snapshot is taken, another caller
   * attaches job 'a' to calendar 'desk' and commits; the application then deletes 'desk' through a
   * store that joins its transaction, and commits whatever happened. Returns the refusal's message,
   * after checking that 'desk' and 'a' are both still stored.
   */
  private static String deleteInCallerTransaction(TestDatabase db, int level) throws Exception {
    String prefix = JdbcStoreContract.nextPrefix();
    try (JdbcStore plain = db.builder().tablePrefix(prefix).build();
        Connection app = db.connect();
        CallerTransactionSource source = new CallerTransactionSource(db, app);
        JdbcStore joining = source.joiningStore(prefix).build()) {
      JobStore other = plain.jobStore();
      other.putCalendar("desk", BusinessCalendar.in(ZoneOffset.UTC).weekdays());
      joining.open();

      app.setTransactionIsolation(level);
      app.setAutoCommit(false);
      try (Statement s = app.createStatement()) {
        s.executeQuery("SELECT COUNT(*) FROM " + prefix + "jobs").close(); // the snapshot
      }
      other.upsert(JobRecord.fresh(spec("a").excluding("desk"), T0));

      source.begin();
      String refusal;
      try {
        refusal = catchMessage(() -> joining.jobStore().deleteCalendar("desk"));
      } finally {
        source.end();
      }
      app.commit(); // the application goes on after the refusal

      assertThat(other.calendars()).containsKey("desk");
      assertThat(other.find("a")).isPresent();
      return refusal;
    }
  }

  private static String catchMessage(Runnable call) {
    try {
      call.run();
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
    throw new AssertionError("not refused");
  }
}
