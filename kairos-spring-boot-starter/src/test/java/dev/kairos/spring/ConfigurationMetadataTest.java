package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The generated configuration metadata (for IDE completion) carries the defaults, and the defaults
 * written by hand for constants of other classes match those constants.
 */
class ConfigurationMetadataTest {

  private static String metadata() throws Exception {
    try (InputStream in =
        ConfigurationMetadataTest.class.getResourceAsStream(
            "/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("spring-configuration-metadata.json on the classpath").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("\\s+", "");
    }
  }

  /** The default value of one property in the metadata, as JSON text, or null. */
  private static String defaultOf(String json, String property) {
    Matcher m =
        Pattern.compile(
                "\\{\"name\":\""
                    + Pattern.quote(property)
                    + "\"[^}]*?\"defaultValue\":(\"[^\"]*\"|[^,}]+)")
            .matcher(json);
    return m.find() ? m.group(1) : null;
  }

  @Test
  void everyDefaultIsInTheMetadata_andHandWrittenOnesMatchTheConstants() throws Exception {
    String json = metadata();
    assertThat(defaultOf(json, "kairos.workers")).isEqualTo("" + Kairos.DEFAULT_WORKERS);
    assertThat(defaultOf(json, "kairos.window-size")).isEqualTo("" + Kairos.DEFAULT_WINDOW_SIZE);
    assertThat(defaultOf(json, "kairos.store.pool-size"))
        .isEqualTo("" + JdbcStore.DEFAULT_POOL_SIZE);
    assertThat(defaultOf(json, "kairos.store.history-per-job"))
        .isEqualTo("" + JdbcStore.DEFAULT_HISTORY_PER_JOB);
    assertThat(defaultOf(json, "kairos.store.table-prefix"))
        .isEqualTo("\"" + JdbcStore.DEFAULT_TABLE_PREFIX + "\"");
    assertThat(defaultOf(json, "kairos.look-ahead")).isEqualTo("\"5m\"");
    assertThat(Kairos.DEFAULT_LOOK_AHEAD).hasMinutes(5);
    assertThat(defaultOf(json, "kairos.grace-period")).isEqualTo("\"30s\"");
    assertThat(Kairos.DEFAULT_GRACE_PERIOD).hasSeconds(30);
    assertThat(defaultOf(json, "kairos.startup-timeout")).isEqualTo("\"60s\"");
    assertThat(Kairos.DEFAULT_STARTUP_TIMEOUT).hasSeconds(60);
    assertThat(defaultOf(json, "kairos.cluster.lease")).isEqualTo("\"30s\"");
    assertThat(Kairos.DEFAULT_CLUSTER_LEASE).hasSeconds(30);
    assertThat(defaultOf(json, "kairos.cluster.poll")).isEqualTo("\"250ms\"");
    assertThat(Kairos.DEFAULT_CLUSTER_POLL).hasMillis(250);
    assertThat(defaultOf(json, "kairos.store.start-mark-delay")).isEqualTo("\"0s\"");
    assertThat(JdbcStore.DEFAULT_START_MARK_DELAY).isZero();
    assertThat(defaultOf(json, "kairos.removed-jobs")).isEqualTo("\"warn\"");
    assertThat(defaultOf(json, "kairos.store.type")).isEqualTo("\"auto\"");
  }
}
