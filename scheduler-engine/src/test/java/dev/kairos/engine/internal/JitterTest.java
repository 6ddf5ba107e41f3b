package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The jitter offset as a pure function: bounded, deterministic, spread, unjittered one-shots. */
class JitterTest {
  private static final Instant T = Instant.parse("2026-01-05T02:00:00Z");

  static Stream<Arguments> bounds() {
    return Stream.of(
        Arguments.of(Duration.ofNanos(1)),
        Arguments.of(Duration.ofMillis(1)),
        Arguments.of(Duration.ofSeconds(7)),
        Arguments.of(Duration.ofHours(1)),
        Arguments.of(Duration.ofDays(400)),
        Arguments.of(ChronoUnit.FOREVER.getDuration()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bounds")
  void offset_isInZeroToBound(Duration bound) {
    Random random = new Random(42);
    for (int i = 0; i < 2_000; i++) {
      String key = "job-" + random.nextInt();
      Instant fire = T.plusNanos(random.nextLong() >>> 8);

      Duration offset = Jitter.offset(key, fire, bound);

      assertThat(offset).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(bound);
    }
  }

  @Test
  void offset_zeroBound_isZero() {
    assertThat(Jitter.offset("k", T, Duration.ZERO)).isZero();
  }

  /**
   * The same (key, fire) gives the same offset in every JVM: pinned values, so a change of the
   * function (which would move every stored jittered due time) fails here.
   */
  @Test
  void offset_isPinned() {
    Duration bound = Duration.ofHours(1);
    assertThat(Jitter.offset("report", T, bound)).isEqualTo(Jitter.offset("report", T, bound));
    assertThat(
            Stream.of("report", "purge", "poll-1")
                .map(k -> Jitter.offset(k, T, bound).toNanos())
                .toList())
        .containsExactly(PINNED_REPORT, PINNED_PURGE, PINNED_POLL_1);
  }

  private static final long PINNED_REPORT = 200_527_167_953L;
  private static final long PINNED_PURGE = 1_108_847_396_719L;
  private static final long PINNED_POLL_1 = 3_088_772_295_961L;

  /** Offsets of many keys at one fire, and of one key over many fires, fill the range evenly. */
  @Test
  void offset_spreadsKeysAndFires() {
    Duration bound = Duration.ofMinutes(10);
    int[] byKey = new int[10];
    int[] byFire = new int[10];
    for (int i = 0; i < 10_000; i++) {
      byKey[(int) Jitter.offset("poll-" + i, T, bound).toMinutes()]++;
      byFire[(int) Jitter.offset("poll", T.plus(Duration.ofHours(i)), bound).toMinutes()]++;
    }
    for (int b = 0; b < 10; b++) {
      assertThat(byKey[b]).as("keys in minute %d", b).isBetween(800, 1200);
      assertThat(byFire[b]).as("fires in minute %d", b).isBetween(800, 1200);
    }
  }

  @Test
  void due_addsTheOffsetToRecurringFiresOnly() {
    Duration j = Duration.ofMinutes(5);
    JobSpec rate = JobSpec.named("k").handler("h").fixedRate(Duration.ofHours(1)).jitter(j);
    JobSpec delay = JobSpec.named("k").handler("h").fixedDelay(Duration.ofHours(1)).jitter(j);
    JobSpec cron = JobSpec.named("k").handler("h").cron("0 0 * * * ?").jitter(j);
    JobSpec once = JobSpec.named("k").handler("h").at(T).jitter(j);

    Instant expected = T.plus(Jitter.offset("k", T, j));
    assertThat(Jitter.due(rate, T)).isEqualTo(expected);
    assertThat(Jitter.due(delay, T)).isEqualTo(expected);
    assertThat(Jitter.due(cron, T)).isEqualTo(expected);
    assertThat(Jitter.due(once, T)).isEqualTo(T);
    assertThat(Jitter.due(rate.jitter(Duration.ZERO), T)).isEqualTo(T);
    assertThat(Jitter.due(rate, null)).isNull();
  }

  /** With jitter shorter than the period, fixed-rate due times keep the order of their fires. */
  @Test
  void due_fixedRate_staysBeforeTheNextFire() {
    Duration period = Duration.ofSeconds(10);
    JobSpec spec = JobSpec.named("k").handler("h").fixedRate(period).jitter(period.minusNanos(1));
    for (int i = 0; i < 10_000; i++) {
      Instant fire = T.plus(period.multipliedBy(i));
      assertThat(Jitter.due(spec, fire)).isBetween(fire, fire.plus(period).minusNanos(1));
    }
  }

  @Test
  void due_nearInstantMax_saturates() {
    JobSpec spec =
        JobSpec.named("k").handler("h").fixedRate(Duration.ofDays(1)).jitter(Duration.ofHours(1));
    assertThat(Jitter.due(spec, Instant.MAX)).isEqualTo(Instant.MAX);
  }
}
