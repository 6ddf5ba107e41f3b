package dev.kairos.jdbc.internal;

import java.math.BigDecimal;
import java.sql.SQLException;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * Where the values of one row's columns go, by parameter name: a Jdbi statement's named parameters
 * ({@link #of}) or the positions of a {@link PositionalBatch}. The methods are typed, so that a
 * null goes out with its column's SQL type on every driver.
 */
interface Columns {
  /** Binds a text column (VARCHAR); null binds SQL NULL. */
  Columns text(String name, String value) throws SQLException;

  /** Binds a NUMERIC column (instants, durations in seconds); null binds SQL NULL. */
  Columns number(String name, BigDecimal value) throws SQLException;

  /** Binds an INTEGER column; null binds SQL NULL. */
  Columns integer(String name, Integer value) throws SQLException;

  /** Binds a BIGINT column; null binds SQL NULL. */
  Columns bigint(String name, Long value) throws SQLException;

  /** Binds a BOOLEAN column; null binds SQL NULL. */
  Columns bool(String name, Boolean value) throws SQLException;

  /** The named parameters of a Jdbi statement. */
  static Columns of(SqlStatement<?> s) {
    return new Columns() {
      @Override
      public Columns text(String name, String value) {
        s.bind(name, value);
        return this;
      }

      @Override
      public Columns number(String name, BigDecimal value) {
        s.bind(name, value);
        return this;
      }

      @Override
      public Columns integer(String name, Integer value) {
        s.bind(name, value);
        return this;
      }

      @Override
      public Columns bigint(String name, Long value) {
        s.bind(name, value);
        return this;
      }

      @Override
      public Columns bool(String name, Boolean value) {
        s.bind(name, value);
        return this;
      }
    };
  }
}
