package dev.kairos.jdbc.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Column encodings shared by both dialects. An instant is NUMERIC(28,9) epoch seconds: exact to the
 * nanosecond over the whole {@link Instant} range, ordered like the instants, and readable with
 * {@code to_timestamp(col)} in PostgreSQL. A duration is its ISO-8601 text ({@code PT24H}), exact
 * too. An enum is its name.
 */
final class Values {
  private static final long NANOS = 1_000_000_000L;
  private static final BigInteger BILLION = BigInteger.valueOf(NANOS);

  private Values() {}

  static BigDecimal decimal(Instant t) {
    return t == null
        ? null
        : BigDecimal.valueOf(t.getEpochSecond()).add(BigDecimal.valueOf(t.getNano(), 9));
  }

  /** A duration as decimal seconds, to add to or subtract from an instant column in SQL. */
  static BigDecimal seconds(Duration d) {
    return BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9));
  }

  /** The instant of a column value; throws for a value outside the instant range. */
  static Instant instant(BigDecimal d) {
    if (d == null) {
      return null;
    }
    // A column value has scale 9: moving the point keeps its digits, with no arithmetic.
    BigDecimal scaled = d.movePointRight(9);
    if (scaled.scale() == 0) {
      try {
        long n = scaled.longValueExact(); // 1677 to 2262: the nanos since the epoch fit in a long
        return Instant.ofEpochSecond(Math.floorDiv(n, NANOS), Math.floorMod(n, NANOS));
      } catch (ArithmeticException beyondLong) {
        // the exact path below
      }
    }
    BigInteger nanosSinceEpoch = d.setScale(9, RoundingMode.UNNECESSARY).unscaledValue();
    BigInteger[] qr = nanosSinceEpoch.divideAndRemainder(BILLION);
    long seconds = qr[0].longValueExact();
    long nanos = qr[1].longValue();
    if (nanos < 0) { // the remainder has the dividend's sign; instants count nanos upwards
      nanos += 1_000_000_000L;
      seconds--;
    }
    return Instant.ofEpochSecond(seconds, nanos);
  }

  static Instant instant(ResultSet rs, String column) throws SQLException {
    BigDecimal d = rs.getBigDecimal(column);
    try {
      return instant(d);
    } catch (ArithmeticException | DateTimeException e) {
      throw new IllegalArgumentException(column + " " + d + " is not an instant", e);
    }
  }

  static String text(Duration d) {
    return d == null ? null : d.toString();
  }

  /**
   * Durations parsed from column text, so that the few texts an application's jobs use (PT1S,
   * PT24H) are parsed once, not at every row read; at most {@link #PARSED_MAX} texts are kept.
   */
  private static final Map<String, Duration> PARSED = new ConcurrentHashMap<>();

  static final int PARSED_MAX = 1024;

  static Duration duration(ResultSet rs, String column) throws SQLException {
    String s = rs.getString(column);
    if (s == null) {
      return null;
    }
    Duration known = PARSED.get(s);
    if (known != null) {
      return known;
    }
    try {
      Duration d = Duration.parse(s);
      if (PARSED.size() < PARSED_MAX) {
        PARSED.put(s, d);
      }
      return d;
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(column + " '" + s + "' is not an ISO-8601 duration", e);
    }
  }

  static ZoneId zone(ResultSet rs, String column) throws SQLException {
    String s = rs.getString(column);
    try {
      return s == null ? null : ZoneId.of(s);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException(column + " '" + s + "' is not a zone id", e);
    }
  }

  static String name(Enum<?> e) {
    return e == null ? null : e.name();
  }

  /** The constant named by the column; throws {@link IllegalArgumentException} naming both. */
  static <E extends Enum<E>> E constant(ResultSet rs, String column, Class<E> type)
      throws SQLException {
    String s = rs.getString(column);
    if (s == null) {
      return null;
    }
    try {
      return Enum.valueOf(type, s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown " + column + " '" + s + "'", e);
    }
  }

  static Integer integer(ResultSet rs, String column) throws SQLException {
    int v = rs.getInt(column);
    return rs.wasNull() ? null : v;
  }
}
