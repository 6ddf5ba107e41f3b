package dev.kairos.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.Retry;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JobJsonTest {
  static Stream<JobSpec> specs() {
    return Stream.of(
        JobSpec.named("a").handler("h").fixedRate(Duration.ofMinutes(5)),
        JobSpec.named("b")
            .handler("h")
            .data("{\"x\":1}")
            .fixedDelay(Duration.ofSeconds(30))
            .initialDelay(Duration.ofSeconds(3))
            .misfire(Misfire.catchUp(3).threshold(Duration.ofMinutes(1)))
            .retry(Retry.backoff(4, Duration.ofSeconds(1))),
        JobSpec.named("c").handler("h").at(Instant.parse("2026-03-01T10:00:00Z")),
        JobSpec.named("d").handler("h").after(Duration.ofHours(2)).misfire(Misfire.skip()),
        JobSpec.named("e")
            .handler("h")
            .cron("0 12 * * 1", ZoneId.of("Europe/Berlin"), CronSyntax.UNIX)
            .dst(DstPolicy.defaults().gap(DstPolicy.Gap.SKIP))
            .startAt(Instant.parse("2026-01-01T00:00:00Z")),
        JobSpec.named("f").handler("h").cron("0 0 2 * * ?").misfire(Misfire.catchUp()),
        JobSpec.named("g")
            .handler("h")
            .fixedRate(Duration.ofHours(1))
            .misfire(Misfire.catchUp(5).within(Duration.ofHours(6)).threshold(Duration.ZERO))
            .jitter(Duration.ofMinutes(10)),
        JobSpec.named("h").handler("h").fixedRate(Duration.ofMinutes(1)).overlap(Overlap.skip()),
        JobSpec.named("i").handler("h").cron("0 * * * * ?").overlap(Overlap.bufferOne()),
        JobSpec.named("r").handler("h").cron("0 * * * * ?").overlap(Overlap.replace()),
        JobSpec.named("al").handler("h").fixedRate(Duration.ofMinutes(1)).overlap(Overlap.allow(4)),
        JobSpec.named("k").handler("h").cron("0 0 9 * * ?").excluding("desk"),
        JobSpec.named("l")
            .handler("h")
            .fixedRate(Duration.ofHours(1))
            .excluding("desk", dev.kairos.CalendarPolicy.NEXT_ALLOWED));
  }

  @ParameterizedTest
  @MethodSource("specs")
  void spec_readsBackEqual(JobSpec spec) {
    assertThat(JobJson.readSpec(JobJson.spec(spec))).isEqualTo(spec);
  }

  @Test
  void run_carriesRecoveryAndMissedFires() {
    Instant t = Instant.parse("2026-01-05T02:00:00Z");
    ObjectNode n =
        JobJson.run(
            new RunRecord(
                "a",
                t,
                t.plusSeconds(2),
                t.plusSeconds(3),
                RunOutcome.SUCCESS,
                null,
                1,
                "i",
                true,
                4));
    assertThat(n.get("recovery").asBoolean()).isTrue();
    assertThat(n.get("missedFires").asInt()).isEqualTo(4);
    assertThat(n.get("latenessMs").asLong()).isEqualTo(2000);
    assertThat(n.get("backfill").asBoolean()).isFalse();
  }

  @Test
  void run_ofABackfill_saysSo_andHasNoLateness() {
    Instant fire = Instant.parse("2026-01-05T02:00:00Z");
    Instant start = Instant.parse("2026-03-01T10:00:00Z"); // months after the fire, on purpose
    ObjectNode n =
        JobJson.run(
            new RunRecord(
                "a",
                fire,
                start,
                start.plusSeconds(1),
                RunOutcome.SUCCESS,
                null,
                1,
                "i",
                false,
                0,
                true));

    assertThat(n.get("backfill").asBoolean()).isTrue();
    assertThat(n.has("latenessMs")).isFalse();
    assertThat(n.get("durationMs").asLong()).isEqualTo(1000);
  }

  @Test
  void readSpec_refusesUnknownFieldsNamingJobAndField() {
    ObjectNode n = JobJson.spec(JobSpec.named("a").handler("h").fixedRate(Duration.ofMinutes(5)));
    ((ObjectNode) n.get("schedule")).put("perod", "PT1M");
    assertThatThrownBy(() -> JobJson.readSpec(n))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("job 'a' schedule: unknown field 'perod'");
  }

  @Test
  void readSpec_refusesBadDurationNamingIt() {
    ObjectNode n = JobJson.spec(JobSpec.named("a").handler("h").fixedRate(Duration.ofMinutes(5)));
    ((ObjectNode) n.get("schedule")).put("period", "5 minutes");
    assertThatThrownBy(() -> JobJson.readSpec(n))
        .hasMessage("job 'a' schedule period: not an ISO-8601 duration such as PT5M: '5 minutes'");
  }

  @Test
  void readSpec_refusesWindowOnOtherPolicies() {
    ObjectNode n = JobJson.spec(JobSpec.named("a").handler("h").fixedRate(Duration.ofMinutes(5)));
    ((ObjectNode) n.get("misfire")).put("window", "PT1H");
    assertThatThrownBy(() -> JobJson.readSpec(n))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job 'a' misfire: window applies to catchUp only, not fireOnce: 'PT1H'");
  }

  @Test
  void readSpec_overlapAllow_badCountsRefusedNamingJobAndValue() {
    ObjectNode n = JobJson.spec(JobSpec.named("a").handler("h").fixedRate(Duration.ofMinutes(5)));
    assertThat(JobJson.readSpec(n.put("overlap", "allow(12)")).overlap())
        .isEqualTo(Overlap.allow(12));
    assertThatThrownBy(() -> JobJson.readSpec(n.put("overlap", "allow(0)")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("job 'a' overlap:")
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> JobJson.readSpec(n.put("overlap", "allow(two)")))
        .hasMessage(
            "job 'a' overlap: 'allow(two)' is not one of forbid, bufferOne, skip, replace,"
                + " allow(n)");
  }
}
