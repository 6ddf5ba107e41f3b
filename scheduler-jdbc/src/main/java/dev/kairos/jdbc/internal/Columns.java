package dev.kairos.jdbc.internal;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.sql.Types;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * Where the values of one row's columns go, by parameter name: a Jdbi statement's named parameters
 * ({@link #of}) or the positions of a {@link PositionalBatch}. The methods are typed, so that a
 * null goes out with its column's SQL type on every driver.
 */
interface Columns {
  /**
   * Binds {@code value} (null: SQL NULL) to the parameter {@code name}, as {@code sqlType} (a
   * {@link Types} constant) of Java type {@code javaType}.
   */
  Columns set(String name, Object value, int sqlType, Class<?> javaType) throws SQLException;

  /** Binds a text column (VARCHAR); null binds SQL NULL. */
  default Columns text(String name, String value) throws SQLException {
    return set(name, value, Types.VARCHAR, String.class);
  }

  /** Binds a NUMERIC column (instants as epoch seconds); null binds SQL NULL. */
  default Columns number(String name, BigDecimal value) throws SQLException {
    return set(name, value, Types.NUMERIC, BigDecimal.class);
  }

  /** Binds an INTEGER column; null binds SQL NULL. */
  default Columns integer(String name, Integer value) throws SQLException {
    return set(name, value, Types.INTEGER, Integer.class);
  }

  /** Binds a BIGINT column; null binds SQL NULL. */
  default Columns bigint(String name, Long value) throws SQLException {
    return set(name, value, Types.BIGINT, Long.class);
  }

  /** Binds a BOOLEAN column; null binds SQL NULL. */
  default Columns bool(String name, Boolean value) throws SQLException {
    return set(name, value, Types.BOOLEAN, Boolean.class);
  }

  /** The named parameters of a Jdbi statement (bound as Jdbi binds a value of that Java type). */
  static Columns of(SqlStatement<?> s) {
    return new Columns() {
      @Override
      public Columns set(String name, Object value, int sqlType, Class<?> javaType) {
        s.bindByType(name, value, javaType);
        return this;
      }
    };
  }
}
