package dev.kairos.benchmarks;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * A {@link DataSource} wrapper that counts what a product sends to the database, for "round trips
 * and commits per run" ({@code --count-jdbc}): statement executions ({@code execute*}, a whole
 * {@code executeBatch} counting once, as one round trip on PostgreSQL) and commits (explicit {@code
 * commit()} calls, and statements executed in auto-commit mode, each its own transaction). The
 * counters are process-wide: one product runs per measuring JVM.
 */
final class Counting {
  private Counting() {}

  static final LongAdder STATEMENTS = new LongAdder();
  static final LongAdder COMMITS = new LongAdder();

  /**
   * True if this run counts statements and commits: environment variable {@code
   * KAIROS_BENCH_COUNT_JDBC=1} (inherited by the measuring JVMs). Counting wraps the data sources
   * of Kairos and db-scheduler (Kairos then gets a HikariCP pool of 8 passed as its data source,
   * its own default pool size); Quartz makes its own pool and is not counted.
   */
  static boolean enabled() {
    return "1".equals(System.getenv("KAIROS_BENCH_COUNT_JDBC"));
  }

  /** Zeroes the counters (at the start of a measured run). */
  static void reset() {
    STATEMENTS.reset();
    COMMITS.reset();
  }

  /** {@code ds}, counting every statement and commit made through its connections. */
  static DataSource wrap(DataSource ds) {
    return proxy(
        DataSource.class,
        ds,
        (target, m, args) -> {
          Object out = m.invoke(target, args);
          return out instanceof Connection c && m.getName().equals("getConnection")
              ? connection(c)
              : out;
        });
  }

  private static Connection connection(Connection c) {
    return proxy(
        Connection.class,
        c,
        (target, m, args) -> {
          Object out = m.invoke(target, args);
          if (m.getName().equals("commit")) {
            COMMITS.increment();
          }
          if (out instanceof Statement s
              && (m.getName().startsWith("prepare") || m.getName().equals("createStatement"))) {
            Class<? extends Statement> type =
                m.getName().equals("prepareCall")
                    ? java.sql.CallableStatement.class
                    : m.getName().equals("prepareStatement")
                        ? java.sql.PreparedStatement.class
                        : Statement.class;
            return statement(type, s, c);
          }
          return out;
        });
  }

  private static <S extends Statement> S statement(Class<S> type, Statement s, Connection c) {
    return proxy(
        type,
        type.cast(s),
        (target, m, args) -> {
          if (m.getName().startsWith("execute")) {
            STATEMENTS.increment();
            if (c.getAutoCommit()) {
              COMMITS.increment();
            }
          }
          return m.invoke(target, args);
        });
  }

  /** How a proxy forwards a call: the target, the method, its arguments. */
  private interface Forward {
    Object call(Object target, Method m, Object[] args) throws Throwable;
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, T target, Forward forward) {
    InvocationHandler h =
        (p, m, args) -> {
          if (m.getName().equals("unwrap") && args != null && args[0] == type) {
            return p;
          }
          if (m.getName().equals("isWrapperFor") && args != null && args[0] == type) {
            return true;
          }
          try {
            return forward.call(target, m, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (T) Proxy.newProxyInstance(Counting.class.getClassLoader(), new Class<?>[] {type}, h);
  }
}
