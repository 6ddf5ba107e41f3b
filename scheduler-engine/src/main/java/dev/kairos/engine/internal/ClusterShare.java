package dev.kairos.engine.internal;

import java.time.Duration;
import java.util.List;

/**
 * Cluster mode: which live instance should claim a job's fires. Every instance reads the same
 * sorted list of live instances from the store and maps each key to one of them by a hash, so all
 * agree without talking to each other. The preferred instance queues a fire at its due time; the
 * others queue it {@link #GRACE} later, by when the preferred instance's claim has normally reached
 * them through the change feed and dequeued it. So in the steady state each fire costs one claim,
 * made by one instance, instead of N instances racing for one row lock; and if the preferred
 * instance is dead or too slow, another claims the fire after the grace period. Claims still decide
 * who runs a fire: a disagreement (two instances with different lists) costs a lost claim, never a
 * double fire.
 */
final class ClusterShare {
  /** How much later a non-preferred instance queues a fire. */
  static final Duration GRACE = Duration.ofMillis(250);

  /** No sharing: every fire is queued at its due time. */
  static final ClusterShare NONE = new ClusterShare(null, List.of());

  private final String self;
  private final List<String> live;

  private ClusterShare(String self, List<String> live) {
    this.self = self;
    this.live = live;
  }

  /**
   * The share of {@code self} among {@code live} (sorted ids); no sharing if {@code self} is not
   * among them (it has not sent a heartbeat yet) or is alone.
   */
  static ClusterShare of(String self, List<String> live) {
    if (live.size() < 2 || !live.contains(self)) {
      return NONE;
    }
    return new ClusterShare(self, List.copyOf(live));
  }

  /** The instance that should claim this job's fires, or null without sharing. */
  String preferred(String key) {
    if (live.isEmpty()) {
      return null;
    }
    return live.get(Math.floorMod(mix(key.hashCode()), live.size()));
  }

  /** How much later than its due time this instance queues a fire of the job. */
  long delayNanos(String key) {
    String p = preferred(key);
    return p == null || p.equals(self) ? 0 : GRACE.toNanos();
  }

  /** The live instances this share was computed from. */
  List<String> live() {
    return live;
  }

  /** Spreads hash codes of similar keys ("job-1", "job-2", ...) evenly (murmur3's finalizer). */
  private static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }
}
