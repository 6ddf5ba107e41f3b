package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How cluster instances share fires by key: all agree, evenly, and nobody is left out. */
class ClusterShareTest {
  private static final List<String> LIVE = List.of("a", "b", "c");

  @Test
  void everyInstanceAgrees_andExactlyOneIsPreferredPerKey() {
    for (int i = 0; i < 3000; i++) {
      String key = "job-" + i;
      int preferredCount = 0;
      for (String self : LIVE) {
        ClusterShare s = ClusterShare.of(self, LIVE);
        assertThat(s.preferred(key)).isEqualTo(ClusterShare.of("a", LIVE).preferred(key));
        if (s.delayNanos(key) == 0) {
          preferredCount++;
        } else {
          assertThat(s.delayNanos(key)).isEqualTo(ClusterShare.GRACE.toNanos());
        }
      }
      assertThat(preferredCount).as(key).isEqualTo(1);
    }
  }

  @Test
  void similarKeys_spreadEvenly() {
    Map<String, Integer> counts = new HashMap<>();
    ClusterShare s = ClusterShare.of("a", LIVE);
    for (int i = 0; i < 30_000; i++) {
      counts.merge(s.preferred("job-" + i), 1, Integer::sum);
    }
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(9_000, 11_000));
  }

  @Test
  void aloneOrNotYetLive_queuesEveryFireOnTime() {
    assertThat(ClusterShare.of("a", List.of("a")).delayNanos("k")).isZero();
    assertThat(ClusterShare.of("d", LIVE).delayNanos("k")).isZero();
    assertThat(ClusterShare.NONE.delayNanos("k")).isZero();
  }
}
