package dev.kairos.jdbc.internal;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * Binds the change-feed stamp of each row a stamping statement writes, where the dialect takes it
 * as a parameter ({@link Dialect#MYSQL}, which has no sequence: see {@link MySqlSql}); elsewhere
 * the stamp is a SQL expression ({@link Dialect#nextChange}) and binding does nothing. Every
 * stamping statement writes one row per execution (its WHERE names a key), so one value per
 * execution keeps stamps unique.
 */
final class ChangeStamps {
  private final String prefix;
  private final boolean bound;

  /** The stamps of tables with this (validated) prefix in this dialect. */
  ChangeStamps(String prefix, Dialect dialect) {
    this.prefix = prefix;
    this.bound = dialect == Dialect.MYSQL;
  }

  /**
   * Stamps for the statements about to run on {@code h}, in its transaction. Costs nothing until a
   * stamp is bound; then, on MySQL, two statements per {@link MySqlSql#STAMPS_PER_VALUE} stamps.
   */
  Source on(Handle h) {
    return bound ? new Source(h, prefix) : Source.NONE;
  }

  /** Stamps handed out in order, for one handle. */
  static final class Source {
    static final Source NONE = new Source(null, null);

    private final Handle handle;
    private final String prefix;
    private long next;
    private long end;

    private Source(Handle handle, String prefix) {
      this.handle = handle;
      this.prefix = prefix;
    }

    /** Binds the next stamp to {@code s} if the dialect takes one; returns {@code s}. */
    <S extends SqlStatement<S>> S bind(S s) {
      return handle == null ? s : s.bind(MySqlSql.CHANGE_PARAMETER, take());
    }

    /** Binds the next stamp to the row of {@code batch} if the dialect takes one. */
    void bind(PositionalBatch batch) throws java.sql.SQLException {
      if (handle != null) {
        batch.bigint(MySqlSql.CHANGE_PARAMETER, take());
      }
    }

    private long take() {
      if (next == end) {
        next = MySqlSql.takeBase(handle, prefix);
        end = next + MySqlSql.STAMPS_PER_VALUE;
      }
      return next++;
    }
  }
}
