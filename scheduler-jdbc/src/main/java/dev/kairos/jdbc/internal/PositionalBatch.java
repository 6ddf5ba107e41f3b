package dev.kairos.jdbc.internal;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;

/**
 * A batch of one statement (or one query, {@link #query}), its rows bound straight to the JDBC
 * statement's positions, on the handle's connection and in its transaction. For the batches that
 * write many rows of many columns (bulk scheduling, write-backs, history): binding 43 named
 * parameters a row through Jdbi cost more client CPU than the database took to store the row (a
 * profile of {@code scheduleAll} on PostgreSQL: two thirds of the store's samples). The SQL is
 * written with {@code :name} parameters as everywhere else; each is sent as a {@code ?} in its
 * place.
 */
final class PositionalBatch implements Columns, AutoCloseable {
  private final PreparedStatement statement;
  private final Map<String, int[]> positions;
  private final boolean numbersAsText;

  private PositionalBatch(
      PreparedStatement statement, Map<String, int[]> positions, boolean numbersAsText) {
    this.statement = statement;
    this.positions = positions;
    this.numbersAsText = numbersAsText;
  }

  /**
   * A statement's SQL with its {@code :name} parameters turned into {@code ?} and their positions,
   * worked out once (the tables keep one for each batched statement, so that a write-back does not
   * parse its SQL again).
   */
  static final class Sql {
    private final String positional;
    private final Map<String, int[]> positions;

    private Sql(String positional, Map<String, int[]> positions) {
      this.positional = positional;
      this.positions = positions;
    }

    /**
     * {@code sql}'s parameters by position. Each must be a column's value ({@code col = :x}, or a
     * {@code VALUES} entry): on PostgreSQL a number is sent untyped and takes its column's type.
     */
    static Sql of(String sql) {
      Map<String, List<Integer>> names = new HashMap<>();
      String positional = positional(sql, names);
      Map<String, int[]> positions = new HashMap<>();
      names.forEach(
          (name, at) -> positions.put(name, at.stream().mapToInt(Integer::intValue).toArray()));
      return new Sql(positional, Map.copyOf(positions));
    }

    /** Prepares the statement on the handle's connection; close the batch when done. */
    PositionalBatch prepare(Handle h, Dialect dialect) throws SQLException {
      return new PositionalBatch(
          h.getConnection().prepareStatement(positional), positions, dialect == Dialect.POSTGRESQL);
    }

    @Override
    public String toString() {
      return positional;
    }
  }

  /**
   * Statements whose text depends on a count (a list of that many parameters), each worked out
   * once, when first needed, and kept for counts up to a bound; a larger count works its statement
   * out on every call.
   */
  static final class PerCount {
    private final java.util.concurrent.atomic.AtomicReferenceArray<Sql> made;
    private final java.util.function.IntFunction<String> text;

    /** Keeps the statements for 1 to {@code max}; {@code text} writes the one for a count. */
    PerCount(int max, java.util.function.IntFunction<String> text) {
      this.made = new java.util.concurrent.atomic.AtomicReferenceArray<>(max + 1);
      this.text = text;
    }

    /** The statement for {@code n}. */
    Sql get(int n) {
      if (n >= made.length()) {
        return Sql.of(text.apply(n));
      }
      Sql sql = made.get(n);
      if (sql == null) { // two threads may both make it: the same statement either way
        sql = Sql.of(text.apply(n));
        made.set(n, sql);
      }
      return sql;
    }
  }

  /** {@code n} parameters {@code :<name>0, :<name>1, …}, separated by commas. */
  static String parameters(String name, int n) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < n; i++) {
      out.append(i == 0 ? ":" : ", :").append(name).append(i);
    }
    return out.toString();
  }

  /**
   * {@code sql} with each {@code :name} parameter replaced by {@code ?}; fills {@code names} with
   * the 1-based positions of each name. Text in single quotes and {@code ::} casts are left alone.
   */
  static String positional(String sql, Map<String, List<Integer>> names) {
    StringBuilder out = new StringBuilder(sql.length());
    int position = 0;
    boolean quoted = false;
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '\'') {
        quoted = !quoted;
      } else if (!quoted && c == ':' && i + 1 < sql.length() && sql.charAt(i + 1) == ':') {
        out.append("::");
        i++;
        continue;
      } else if (!quoted
          && c == ':'
          && i + 1 < sql.length()
          && Character.isJavaIdentifierStart(sql.charAt(i + 1))) {
        int end = i + 1;
        while (end < sql.length() && Character.isJavaIdentifierPart(sql.charAt(end))) {
          end++;
        }
        names.computeIfAbsent(sql.substring(i + 1, end), n -> new ArrayList<>()).add(++position);
        out.append('?');
        i = end - 1;
        continue;
      }
      out.append(c);
    }
    return out.toString();
  }

  private int[] at(String name) {
    int[] at = positions.get(name);
    if (at == null) {
      throw new IllegalStateException("the statement has no parameter :" + name);
    }
    return at;
  }

  @Override
  public Columns set(String name, Object value, int sqlType, Class<?> javaType)
      throws SQLException {
    for (int p : at(name)) {
      if (value == null) {
        statement.setNull(p, sqlType);
      } else if (numbersAsText && value instanceof BigDecimal d) {
        // Sent as text of no declared type: the server reads it as the column's NUMERIC. The
        // driver's binary NUMERIC encoding divides a BigInteger per value: a third of the
        // client CPU of scheduleAll on PostgreSQL.
        statement.setObject(p, d.toPlainString(), Types.OTHER);
      } else {
        statement.setObject(p, value, sqlType);
      }
    }
    return this;
  }

  /** Ends the row bound so far; the next binds start the next row. */
  void add() throws SQLException {
    statement.addBatch();
  }

  /** Reads one row of a result set. */
  @FunctionalInterface
  interface RowReader<T> {
    /** The value of the row the result set is on. */
    T read(java.sql.ResultSet rs) throws SQLException;
  }

  /**
   * Runs the statement once, as a query, with the values bound so far, and reads every row it
   * returns: for the statements of the fire path that read rows (a claim's {@code RETURNING}, a
   * write-back's locking read), where Jdbi's per-statement work (a copy of its configuration, the
   * binding of each argument by type, the mapping callbacks) cost more client CPU than the driver.
   */
  <T> List<T> query(RowReader<T> reader) throws SQLException {
    List<T> out = new ArrayList<>();
    try (java.sql.ResultSet rs = statement.executeQuery()) {
      while (rs.next()) {
        out.add(reader.read(rs));
      }
    }
    return out;
  }

  /** Runs the rows added; the update count of each (some drivers: SUCCESS_NO_INFO). */
  int[] execute() throws SQLException {
    return statement.executeBatch();
  }

  @Override
  public void close() throws SQLException {
    statement.close();
  }
}
