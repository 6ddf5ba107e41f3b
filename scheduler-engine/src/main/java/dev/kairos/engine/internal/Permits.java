package dev.kairos.engine.internal;

import dev.kairos.ConcurrencyLimit;

/**
 * One concurrency limit as the dispatcher enforces it on this instance: how many of its permits are
 * held, and the due fires waiting for one, earliest due first. Not thread-safe: every member is
 * guarded by the {@link Dispatcher}'s lock.
 *
 * <p>Invariants (under the lock): {@code held} counts the entries whose {@link Entry#permit} is
 * this (running, or queued in the dispatcher's heap after a permit was handed to them) and the
 * backfill runs that took a permit ({@link Dispatcher#takeBackfillPermit}), so {@code held <=
 * limit.permits()}; an entry in {@code waiting} holds no permit and has {@link Entry#waitingFor}
 * this. {@code waiting} is empty unless {@code held == limit.permits()} or a cluster back-off is in
 * force ({@code backoffUntil} after now): a permit that frees is handed to the head of {@code
 * waiting} at once, and when a back-off ends the dispatcher hands out the free permits ({@code
 * releaseWaiters}), its leader waiting no longer than {@code backoffUntil} while fires wait beside
 * free permits. So no waiting fire is left behind: no lost wake-up.
 */
final class Permits {
  final ConcurrencyLimit limit;

  /** Permits held. Guarded by the dispatcher's lock. */
  int held;

  /**
   * Cluster mode: until when (time-source nanos) no fire of this limit is admitted nor handed a
   * freed permit, after the store refused a claim because the limit is full in the cluster. Guarded
   * by the dispatcher's lock.
   */
  long backoffUntil = Long.MIN_VALUE;

  /**
   * True when a backfill run was refused a permit of this limit and has not been told of a free one
   * since ({@link Dispatcher#takeBackfillPermit}). Guarded by the dispatcher's lock.
   */
  boolean backfillWaits;

  /** Due fires waiting for a permit, by (due, seq). Guarded by the dispatcher's lock. */
  final FireHeap waiting = new FireHeap();

  Permits(ConcurrencyLimit limit) {
    this.limit = limit;
  }

  /** Call only with the lock held. True if a permit is free. */
  boolean free() {
    return held < limit.permits();
  }
}
