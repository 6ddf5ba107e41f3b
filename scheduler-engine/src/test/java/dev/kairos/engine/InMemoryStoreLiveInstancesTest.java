package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link InMemoryStore#liveInstances(Duration)} of a shared store: registered instances whose last
 * heartbeat, by the store's clock, is within the given duration, sorted by id.
 */
class InMemoryStoreLiveInstancesTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-05T00:00:00Z"));
  private final InMemoryStore store = InMemoryStore.shared(clock);

  @Test
  void noInstanceRegistered_noneLive() {
    assertThat(store.liveInstances(LEASE)).isEmpty();
  }

  @Test
  void registeredInstances_listedSortedById() {
    store.register("c");
    store.register("a");
    store.register("b");

    assertThat(store.liveInstances(LEASE)).containsExactly("a", "b", "c");
  }

  /**
   * Liveness is judged by the store's clock: exactly the lease old still counts, a nano more not.
   */
  @Test
  void instanceWithoutHeartbeat_dropsOutWhenItsLeaseHasPassed() {
    store.register("a");
    store.register("b");
    clock.advance(Duration.ofSeconds(20));
    store.heartbeat("b");

    clock.advance(Duration.ofSeconds(10)); // a: exactly the lease since its registration
    assertThat(store.liveInstances(LEASE)).containsExactly("a", "b");

    clock.advance(Duration.ofNanos(1));
    assertThat(store.liveInstances(LEASE)).containsExactly("b");

    clock.advance(Duration.ofSeconds(20)); // b: more than the lease since its heartbeat
    assertThat(store.liveInstances(LEASE)).isEmpty();
    assertThat(store.instances()).containsOnlyKeys("a", "b"); // still registered, just not live
  }

  @Test
  void heartbeatAfterExpiry_makesTheInstanceLiveAgain() {
    store.register("a");
    clock.advance(LEASE.plusSeconds(1));
    assertThat(store.liveInstances(LEASE)).isEmpty();

    store.heartbeat("a");

    assertThat(store.liveInstances(LEASE)).containsExactly("a");
  }

  @Test
  void deregisteredInstance_notLive() {
    store.register("a");
    store.register("b");

    store.deregister("a");

    assertThat(store.liveInstances(LEASE)).containsExactly("b");
  }

  /** The window is the caller's: the same heartbeats are live for a long one, not a short one. */
  @Test
  void windowIsTheGivenDuration() {
    store.register("a");
    clock.advance(Duration.ofSeconds(5));

    assertThat(store.liveInstances(Duration.ofSeconds(4))).isEmpty();
    assertThat(store.liveInstances(Duration.ofSeconds(5))).containsExactly("a");
  }
}
