package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Overlap;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The overlap rule as a table: (policy, run start and end) → the next fire and what is dropped. A
 * fixed rate of 10 s from {@code T0}; the run is of the fire at 0 s unless said otherwise, so the
 * timetable's next fire is at 10 s.
 */
class OverlapRuleTest {
  private static final Instant T0 = Instant.parse("2026-01-05T00:00:00Z");
  private static final Timetable EVERY_10S =
      Timetables.of(JobSpec.named("j").handler("h").fixedRate(Duration.ofSeconds(10)).startAt(T0));

  static Stream<Arguments> table() {
    return Stream.of(
        // policy, start s, end s, → next s, dropped, oldest dropped s
        // The run ends before the next fire: nothing came due during it.
        Arguments.of(Overlap.forbid(), 0, 9, 10, 0, null),
        Arguments.of(Overlap.bufferOne(), 0, 9, 10, 0, null),
        Arguments.of(Overlap.skip(), 0, 9, 10, 0, null),
        Arguments.of(Overlap.replace(), 0, 9, 10, 0, null),
        // Ends exactly at the next fire: it came due during the run (at or before the end).
        Arguments.of(Overlap.forbid(), 0, 10, 10, 0, null),
        Arguments.of(Overlap.bufferOne(), 0, 10, 10, 0, null),
        Arguments.of(Overlap.skip(), 0, 10, 20, 1, 10),
        // Replace: the run was interrupted when fire 10 came due, and fire 10 runs next.
        Arguments.of(Overlap.replace(), 0, 10, 10, 0, null),
        // Overran 3.5 periods: fires 10, 20, 30 came due during it.
        Arguments.of(Overlap.forbid(), 0, 35, 10, 0, null),
        Arguments.of(Overlap.bufferOne(), 0, 35, 30, 2, 10),
        Arguments.of(Overlap.skip(), 0, 35, 40, 3, 10),
        // Replace, a handler that ignored the interrupt: the newest fire runs, as bufferOne.
        Arguments.of(Overlap.replace(), 0, 35, 30, 2, 10),
        // A late start (backlog): fire 10 was already due at the start, so the misfire rule,
        // not the overlap policy, decides about it.
        Arguments.of(Overlap.skip(), 12, 35, 10, 0, null),
        Arguments.of(Overlap.bufferOne(), 12, 35, 10, 0, null),
        Arguments.of(Overlap.replace(), 12, 35, 10, 0, null));
  }

  @ParameterizedTest(name = "{0}: run {1}s..{2}s → next {3}s, {4} dropped")
  @MethodSource("table")
  void after(Overlap policy, int start, int end, int next, long dropped, Integer oldestDropped) {
    OverlapRule.Decision d = OverlapRule.after(EVERY_10S, policy, s(10), s(start), s(end));

    assertThat(d.next()).isEqualTo(s(next));
    assertThat(d.dropped()).isEqualTo(dropped);
    assertThat(d.oldestDropped()).isEqualTo(oldestDropped == null ? null : s(oldestDropped));
  }

  static Stream<Arguments> cron() {
    return Stream.of(
        // Hourly cron; the 02:00 run ends at 04:30: 03:00 and 04:00 came due during it.
        Arguments.of(Overlap.forbid(), "03:00", 0),
        Arguments.of(Overlap.bufferOne(), "04:00", 1),
        Arguments.of(Overlap.skip(), "05:00", 2),
        Arguments.of(Overlap.replace(), "04:00", 1));
  }

  @ParameterizedTest(name = "cron, {0} → next {1}")
  @MethodSource("cron")
  void after_cron(Overlap policy, String next, long dropped) {
    Timetable hourly =
        Timetables.of(JobSpec.named("c").handler("h").cron("0 0 * * * ?", ZoneOffset.UTC));

    OverlapRule.Decision d =
        OverlapRule.after(
            hourly,
            policy,
            Instant.parse("2026-01-05T03:00:00Z"),
            Instant.parse("2026-01-05T02:00:00Z"),
            Instant.parse("2026-01-05T04:30:00Z"));

    assertThat(d.next()).isEqualTo(Instant.parse("2026-01-05T" + next + ":00Z"));
    assertThat(d.dropped()).isEqualTo(dropped);
  }

  /** Fixed delay counts from the end of the run, so nothing can come due during one. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void fixedDelay_neverOverlaps(Overlap policy) {
    Timetable delay =
        Timetables.of(JobSpec.named("d").handler("h").fixedDelay(Duration.ofSeconds(10)));
    Instant next = delay.afterRun(s(0), s(35)).orElseThrow();

    OverlapRule.Decision d = OverlapRule.after(delay, policy, next, s(0), s(35));

    assertThat(d.next()).isEqualTo(s(45));
    assertThat(d.dropped()).isZero();
  }

  /** A timetable that ends (no next fire) stays ended. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void noNextFire_staysNone(Overlap policy) {
    OverlapRule.Decision d = OverlapRule.after(EVERY_10S, policy, null, s(0), s(35));

    assertThat(d.next()).isNull();
    assertThat(d.dropped()).isZero();
  }

  static Stream<Overlap> policies() {
    return Stream.of(Overlap.forbid(), Overlap.bufferOne(), Overlap.skip(), Overlap.replace());
  }

  private static Instant s(int seconds) {
    return T0.plusSeconds(seconds);
  }
}
