package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.spi.ClusterStore;
import dev.kairos.tck.ClusterStoreContract;
import dev.kairos.tck.StderrCapture;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The cluster contract on H2: store objects with pools of their own over one in-memory database
 * (what an H2 server would look like to several processes, without the server).
 */
class H2ClusterStoreTest extends ClusterStoreContract {
  private String url;

  @Override
  protected Supplier<ClusterStore> sharedTables() {
    url = "jdbc:h2:mem:cluster-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=10";
    return () ->
        JdbcStore.builder()
            .url(url)
            .poolSize(4)
            .clustered(true)
            .changeSettle(SETTLE)
            .build()
            .jobStore();
  }

  @Test
  void awaitChange_noNotifications_waitsMaxAndReturnsFalse() throws Exception {
    long start = System.nanoTime();

    assertThat(a.awaitChange(Duration.ofMillis(200))).isFalse();

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(190));
  }

  /** A plain store over tables that clustered instances use warns: its fires are not claimed. */
  @Test
  void plainStore_whileClusteredInstancesLive_warnsAtOpen() {
    a.register("node-1");
    JdbcStore plain = JdbcStore.builder().url(url).build();
    try (StderrCapture err = new StderrCapture()) {
      plain.open();
      assertThat(err.lines("instances [node-1] use tables kairos_* in cluster mode")).isEqualTo(1);
    } finally {
      plain.close();
    }
  }

  @Test
  void instances_registeredHeartbeatDeregistered_byDatabaseClock() {
    ClusterStore s = a;
    Instant before = s.storeNow();
    s.register("node-1");
    s.register("node-2");
    s.heartbeat("node-1");
    s.deregister("node-2");
    s.heartbeat("node-3"); // a heartbeat of an unknown instance registers it

    Map<String, Instant> live = s.instances();
    assertThat(live).containsOnlyKeys("node-1", "node-3");
    assertThat(live.values()).allSatisfy(t -> assertThat(t).isAfterOrEqualTo(before));
  }
}
