package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.internal.JdbcJobStore;
import dev.kairos.tck.MariaDbTestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MariaDB takes no statement longer than its {@code max_allowed_packet} (16 MiB by default): a job
 * whose data was longer made the server drop the connection, and {@code schedule} failed with
 * "Socket error", which says nothing of the cause. Now such data is refused before anything is
 * sent, naming the key, the field, its size and the setting; data that fits is stored and read back
 * as it was. The test takes the server's setting as it is (it never changes the shared server).
 */
class MariaDbPacketLimitTest {
  @Test
  void dataLongerThanMaxAllowedPacket_isRefusedNamingIt_dataThatFitsIsStoredAsItIs()
      throws Exception {
    try (MariaDbTestDatabase db = MariaDbTestDatabase.create()) {
      db.assumeReachable();
      long max;
      try (Connection c = db.connect();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
        rs.next();
        max = rs.getLong(1);
      }
      assertThat(max).as("max_allowed_packet").isLessThan(256L * 1024 * 1024);
      int fits = (int) (max - JdbcJobStore.STATEMENT_ROOM - 1024);
      // Quotes are sent escaped, two bytes each: a text that fits in characters may not in bytes.
      String tooLong = "'".repeat((int) (max / 2));
      JobSpec base = JobSpec.named("big").handler("h").after(Duration.ofHours(1));
      try (Scheduler s =
          Kairos.builder().store(db.builder().build()).handler("h", c -> {}).build()) {
        assertThatThrownBy(() -> s.schedule(base.data(tooLong)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("job 'big': data is " + String.format("%,d", max) + " bytes")
            .hasMessageContaining("max_allowed_packet (" + String.format("%,d", max) + " bytes");
        assertThatThrownBy(
                () ->
                    s.scheduleAll(
                        List.of(
                            JobSpec.named("small").handler("h").after(Duration.ofHours(1)),
                            base.data("x".repeat((int) max)))))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("job 'big': data is");
        assertThat(s.jobs()).as("nothing written").isEmpty();

        String data = "é".repeat(fits / 4) + "x".repeat(fits - fits / 4 * 2);
        s.schedule(base.data(data));
        assertThat(s.job("big").orElseThrow().spec().data()).hasValue(data);
      }
    }
  }
}
