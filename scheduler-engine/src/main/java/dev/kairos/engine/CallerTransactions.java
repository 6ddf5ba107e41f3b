package dev.kairos.engine;

/**
 * Tells the scheduler whether a change the calling thread has just made to the store is committed
 * only later, by a transaction of the caller's that the store takes part in; then the scheduler's
 * in-memory heap learns of the change only when that transaction ends: after a commit it fires the
 * job as stored, after a rollback it holds no trace of it. Framework-free: the Spring Boot starter
 * implements it with Spring's transaction synchronization for a store on the application's {@code
 * DataSource}; the default, {@link #NONE}, is right for every store that commits each call itself.
 *
 * <p>Asked after {@code schedule}, {@code pause}, {@code resume}, {@code triggerNow}, {@code
 * unschedule} and the bulk forms changed the store. An {@code unschedule} drops the job from the
 * heap at once in either case (so no run starts meanwhile) and a rollback brings it back.
 */
@FunctionalInterface
public interface CallerTransactions {
  /** Every change is committed when the store call returns: the heap learns of it at once. */
  CallerTransactions NONE = reread -> false;

  /**
   * Called on the thread that changed the store, right after the store call returned.
   *
   * @param reread makes the heap agree with what the store holds for the changed jobs (it reads
   *     them again); to be called once, on any thread, after the caller's transaction committed or
   *     rolled back
   * @return true if the change belongs to an open transaction and {@code reread} will be called
   *     when it ends; false if the change is committed already (then {@code reread} is never called
   *     and the heap learns of the change at once)
   */
  boolean afterCompletion(Runnable reread);

  /**
   * Whether a store call made now on the calling thread might take part in a transaction of the
   * caller's. If it might, the engine makes the store calls of a bulk change on this thread only
   * (another thread's would not join the transaction), and before any change's write it holds the
   * changed jobs out of the batches it writes for other jobs and waits for the batches already
   * being written with them, so that none of those meets the transaction's row locks. Asked before
   * each change's write.
   *
   * @return true if a caller's transaction may be open on this thread; {@link #NONE}: false
   */
  default boolean mayJoin() {
    return false;
  }
}
