package dev.kairos.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Instant columns read back exactly, and H2's database clock as the epoch seconds of its timestamp.
 */
class ValuesTest {

  @Test
  void instant_roundTripsEveryRange() {
    List<Instant> instants =
        List.of(
            Instant.EPOCH,
            Instant.ofEpochSecond(0, 1),
            Instant.ofEpochSecond(-1, 999_999_999), // just before the epoch
            Instant.ofEpochSecond(-1, 0),
            Instant.parse("2026-12-02T17:30:00.123456789Z"),
            Instant.parse("1677-09-21T00:12:43.145224193Z"), // smallest long of nanoseconds
            Instant.parse("1677-09-21T00:12:43.145224191Z"), // below it: the BigInteger path
            Instant.parse("2262-04-11T23:47:16.854775807Z"), // largest long of nanoseconds
            Instant.parse("2262-04-11T23:47:16.854775808Z"), // above it
            Instant.MIN,
            Instant.MAX);
    for (Instant t : instants) {
      assertEquals(t, Values.instant(Values.decimal(t)), t.toString());
    }
  }

  @Test
  void instant_acceptsFewerDecimalsAndRefusesMoreOrOutOfRange() {
    assertEquals(Instant.ofEpochSecond(-2, 500_000_000), Values.instant(new BigDecimal("-1.5")));
    assertEquals(Instant.ofEpochSecond(12), Values.instant(new BigDecimal("12")));
    assertThrows(ArithmeticException.class, () -> Values.instant(new BigDecimal("1.0000000001")));
    BigDecimal beyond = Values.decimal(Instant.MAX).add(BigDecimal.ONE);
    assertThrows(RuntimeException.class, () -> Values.instant(beyond));
    // more decimals than nine, all zeros: the exact path, which accepts them
    assertEquals(
        Instant.ofEpochSecond(1, 500_000_000), Values.instant(new BigDecimal("1.500000000000")));
    assertEquals(
        Instant.parse("2026-12-07T04:40:00.000000001Z"),
        Values.instant(new BigDecimal("1796618400.000000001")));
  }

  /**
   * A duration column's text is parsed once and then served from a bounded map: the same value for
   * the same text, beyond the bound too, and bad text refused with the column named every time.
   */
  @Test
  void duration_sameValueForTheSameText_badTextRefusedEveryTime() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:values_duration");
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE d (n INT, period VARCHAR(64))");
      int rows = Values.PARSED_MAX + 200;
      for (int i = 0; i < rows; i++) {
        s.execute("INSERT INTO d VALUES (" + i + ", 'PT" + i + "S')");
      }
      s.execute("INSERT INTO d VALUES (-1, 'every day'), (-2, NULL)");
      for (int pass = 0; pass < 2; pass++) {
        try (ResultSet rs = s.executeQuery("SELECT n, period FROM d WHERE n >= 0 ORDER BY n")) {
          while (rs.next()) {
            assertEquals(Duration.ofSeconds(rs.getInt(1)), Values.duration(rs, "period"));
          }
        }
        try (ResultSet rs = s.executeQuery("SELECT period FROM d WHERE n < 0 ORDER BY n DESC")) {
          rs.next();
          IllegalArgumentException bad =
              assertThrows(IllegalArgumentException.class, () -> Values.duration(rs, "period"));
          assertEquals("period 'every day' is not an ISO-8601 duration", bad.getMessage());
          rs.next();
          assertNull(Values.duration(rs, "period"));
        }
      }
    }
  }

  /** H2's now() counts microseconds in UTC: the epoch seconds of the instant, in any zone. */
  @Test
  void h2Now_isTheEpochSecondsOfCurrentTimestampInEverySessionZone() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:values_now");
        Statement s = c.createStatement()) {
      for (String zone : List.of("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata")) {
        s.execute("SET TIME ZONE '" + zone + "'");
        try (ResultSet rs =
            s.executeQuery(
                "SELECT "
                    + Dialect.H2.now()
                    + ", CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) AS NUMERIC(28,9))")) {
          rs.next();
          BigDecimal now = rs.getBigDecimal(1);
          assertEquals(9, now.scale(), zone);
          assertEquals(0, now.compareTo(rs.getBigDecimal(2)), zone + ": " + now);
        }
      }
    }
  }
}
