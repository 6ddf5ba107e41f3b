package dev.kairos.jdbc.internal;

import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import java.util.Set;

/**
 * Tells the store's HikariCP pool over H2 which errors mean the connection is dead, so that it is
 * evicted at once instead of being handed out again.
 *
 * <p>HikariCP evicts a connection whose error has an SQLSTATE of class 08 (and a few others); H2
 * reports a broken TCP connection (a restarted or killed H2 server), a session the server closed
 * ({@code ABORT_SESSION}, a database shut down) and a closed database with SQLSTATEs of its own
 * (90067, 90121, 90098, 90007). Without this, a busy store kept such connections: each was used
 * again within HikariCP's half-second window that skips the check on borrowing, failed again, and
 * went back to the pool (three instances over an H2 server whose sessions were aborted failed for
 * tens of seconds, and 44, then 5,477 fires of a 20 s window never ran: {@code
 * H2ServerClusterTest}).
 */
public final class H2BrokenConnections implements SQLExceptionOverride {
  /**
   * H2's error codes of a connection that cannot be used again: CONNECTION_BROKEN_1,
   * DATABASE_CALLED_AT_SHUTDOWN (its session closed), DATABASE_IS_CLOSED, OBJECT_CLOSED.
   */
  static final Set<Integer> DEAD = Set.of(90067, 90121, 90098, 90007);

  @java.lang.Override
  public Override adjudicate(SQLException e) {
    return DEAD.contains(e.getErrorCode()) ? Override.MUST_EVICT : Override.CONTINUE_EVICT;
  }

  /** True if {@code e} or one of its causes is an H2 error of a dead connection ({@link #DEAD}). */
  static boolean dead(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && DEAD.contains(s.getErrorCode())) {
        return true;
      }
    }
    return false;
  }
}
