package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.tck.PostgresTestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.Oid;

/**
 * The pool the store makes from a PostgreSQL URL receives {@code NUMERIC} (every instant column) as
 * text, which the driver decodes faster than the binary form; a URL that chooses binary transfer
 * itself keeps its choice. Instants read back exactly either way.
 */
class PostgresNumericTransferTest {
  private static PostgresTestDatabase db;

  @BeforeAll
  static void createSchema() {
    db = PostgresTestDatabase.create();
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void storePool_receivesNumericAsText_instantsExact() throws Exception {
    db.assumeReachable();
    assertThat(binaryNumeric(db.url())).isFalse();
  }

  @Test
  void urlNamingBinaryTransfer_keepsItsOwnChoice() throws Exception {
    db.assumeReachable();
    String url = db.url() + "&binaryTransferEnable=NUMERIC"; // url() has a query already
    assertThat(binaryNumeric(url)).isTrue();
  }

  /**
   * Whether connections of the store's pool for {@code url} receive NUMERIC in binary, after
   * checking that an instant column value read through that pool (five times, past the driver's
   * prepare threshold, where it switches to binary results) is exact.
   */
  private static boolean binaryNumeric(String url) throws Exception {
    ConnectionSource source = ConnectionSource.pool(url, PostgresTestDatabase.USER, null, 1, "t");
    try (Connection c = source.open().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT CAST(? AS NUMERIC(28,9))")) {
      Instant t = Instant.parse("2026-12-07T04:40:00.123456789Z");
      for (int i = 0; i < 8; i++) {
        ps.setBigDecimal(1, Values.decimal(t));
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          BigDecimal read = rs.getBigDecimal(1);
          assertThat(Values.instant(read)).isEqualTo(t);
        }
      }
      return c.unwrap(BaseConnection.class).getQueryExecutor().useBinaryForReceive(Oid.NUMERIC);
    } finally {
      source.close();
    }
  }
}
