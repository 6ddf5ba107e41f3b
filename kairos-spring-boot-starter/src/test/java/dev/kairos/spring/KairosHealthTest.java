package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.SchedulerStats;
import org.junit.jupiter.api.Test;

/** The health both Spring Boot lines' indicators report, from the scheduler's stats. */
class KairosHealthTest {

  @Test
  void storeAnswering_outsideClusterMode_upWithoutClusterDetails() {
    KairosHealth h = KairosHealth.of(new SchedulerStats(3, 1, 4, true));
    assertThat(h.up()).isTrue();
    assertThat(h.details())
        .containsEntry("store", "up")
        .containsEntry("queuedJobs", 3)
        .containsEntry("runningJobs", 1)
        .containsEntry("workers", 4)
        .doesNotContainKeys("instance", "liveInstances");
  }

  @Test
  void storeRetried_down() {
    KairosHealth h = KairosHealth.of(new SchedulerStats(0, 0, 4, false));
    assertThat(h.up()).isFalse();
    assertThat(h.details()).containsEntry("store", "retrying");
  }

  @Test
  void clusterInstanceAlive_upWithLiveInstances() {
    KairosHealth h = KairosHealth.of(new SchedulerStats(0, 0, 4, true, 3, true));
    assertThat(h.up()).isTrue();
    assertThat(h.details()).containsEntry("instance", "alive").containsEntry("liveInstances", 3);
  }

  @Test
  void clusterHeartbeatLate_downThoughTheStoreAnswers() {
    KairosHealth h = KairosHealth.of(new SchedulerStats(0, 0, 4, true, 2, false));
    assertThat(h.up()).isFalse();
    assertThat(h.details())
        .containsEntry("store", "up")
        .containsEntry("instance", "heartbeat late");
  }

  /**
   * Runs the store refuses wait for retries: shown, and still UP (a restart would not mend what the
   * store refuses); absent when there are none.
   */
  @Test
  void writeBacksWaiting_shownWhileAny_stillUp() {
    KairosHealth h = KairosHealth.of(new SchedulerStats(0, 0, 4, true, 0, true, 2));
    assertThat(h.up()).isTrue();
    assertThat(h.details()).containsEntry("writeBacksWaiting", 2);
    assertThat(KairosHealth.of(new SchedulerStats(0, 0, 4, true)).details())
        .doesNotContainKey("writeBacksWaiting");
  }
}
