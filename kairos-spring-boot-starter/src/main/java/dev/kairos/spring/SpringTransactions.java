package dev.kairos.spring;

import dev.kairos.engine.CallerTransactions;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Lets the store on the application's DataSource take part in the caller's Spring transaction, and
 * the scheduler's heap follow it. Referenced only when spring-jdbc is on the classpath.
 *
 * <p>The store gets the DataSource behind Spring's {@link TransactionAwareDataSourceProxy}: a store
 * call made on a thread whose transaction is bound to that DataSource runs on the transaction's
 * connection (the store's own begin and commit then join it), every other call (workers, the
 * cluster thread, calls outside a transaction) on a connection of its own as before. The heap hook
 * defers the engine's notice of such a change to the transaction's end, where the engine reads the
 * keys again: a commit queues the job as stored, a rollback leaves no trace.
 */
final class SpringTransactions implements CallerTransactions {
  private final DataSource dataSource;

  private SpringTransactions(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** The DataSource the store should use to take part in transactions on {@code dataSource}. */
  static DataSource joining(DataSource dataSource) {
    return new TransactionAwareDataSourceProxy(dataSource);
  }

  /**
   * True while the calling thread's Spring transaction holds a connection of {@code dataSource}: a
   * store call then runs on that connection, inside the transaction. Outside one, a connection that
   * the pool hands out with auto-commit off is the store's own (the store commits it).
   */
  static BooleanSupplier openOn(DataSource dataSource) {
    return () ->
        TransactionSynchronizationManager.isActualTransactionActive()
            && TransactionSynchronizationManager.hasResource(dataSource);
  }

  /** The heap hook for a store on {@code dataSource}. */
  static CallerTransactions heapHook(DataSource dataSource) {
    return new SpringTransactions(dataSource);
  }

  @Override
  public boolean afterCompletion(Runnable reread) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.hasResource(dataSource)) {
      return false; // no transaction of this thread holds a connection of the store's DataSource
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCompletion(int status) {
            reread.run(); // after a commit: the change; after a rollback: the store as it was
          }
        });
    return true;
  }

  /** Any transaction synchronization on this thread: the store's calls may join it. */
  @Override
  public boolean mayJoin() {
    return TransactionSynchronizationManager.isSynchronizationActive();
  }
}
