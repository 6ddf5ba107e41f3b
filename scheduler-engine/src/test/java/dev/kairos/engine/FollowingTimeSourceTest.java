package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** {@link TimeSource#following}: the system clock plus the offset to a reference clock. */
class FollowingTimeSourceTest {
  /** Generous one-sided bound for "equal" on a loaded 2-core machine. */
  private static final Duration SLACK = Duration.ofMillis(300);

  private final AtomicReference<Duration> referenceOffset = new AtomicReference<>(Duration.ZERO);
  private final AtomicReference<RuntimeException> referenceFailure = new AtomicReference<>();
  private final AtomicInteger samples = new AtomicInteger();

  private final Supplier<Instant> reference =
      () -> {
        samples.incrementAndGet();
        RuntimeException e = referenceFailure.get();
        if (e != null) {
          throw e;
        }
        return TimeSource.system().now().plus(referenceOffset.get());
      };

  private static Duration offsetOf(TimeSource t) {
    return Duration.between(TimeSource.system().now(), t.now());
  }

  private static boolean near(Duration actual, Duration expected) {
    return actual.minus(expected).abs().compareTo(SLACK) < 0;
  }

  @Test
  void now_referenceAhead_followsItFromTheFirstCall() {
    referenceOffset.set(Duration.ofSeconds(5));
    TimeSource t = TimeSource.following(reference, Duration.ofHours(1));

    assertThat(near(offsetOf(t), Duration.ofSeconds(5))).isTrue();
    assertThat(samples).hasValue(1);
  }

  @Test
  void now_referenceMoves_followsAfterResampleInTheBackground() {
    referenceOffset.set(Duration.ofSeconds(5));
    TimeSource t = TimeSource.following(reference, Duration.ofMillis(20));
    t.now();

    referenceOffset.set(Duration.ofSeconds(-3));

    await().atMost(Duration.ofSeconds(10)).until(() -> near(offsetOf(t), Duration.ofSeconds(-3)));
  }

  /** No resample before the interval has passed: a reader never pays for one. */
  @Test
  void now_withinResampleInterval_asksReferenceOnce() {
    TimeSource t = TimeSource.following(reference, Duration.ofHours(1));
    for (int i = 0; i < 1000; i++) {
      t.now();
    }
    assertThat(samples).hasValue(1);
  }

  @Test
  void now_referenceFailsAtFirst_systemTimeThenFollowsOnceItAnswers() {
    referenceFailure.set(new IllegalStateException("database down"));
    referenceOffset.set(Duration.ofSeconds(7));
    TimeSource t = TimeSource.following(reference, Duration.ofMillis(20));

    assertThat(near(offsetOf(t), Duration.ZERO)).isTrue();

    referenceFailure.set(null);
    await().atMost(Duration.ofSeconds(10)).until(() -> near(offsetOf(t), Duration.ofSeconds(7)));
  }

  @Test
  void now_referenceFailsLater_keepsLastOffset() {
    referenceOffset.set(Duration.ofSeconds(4));
    TimeSource t = TimeSource.following(reference, Duration.ofMillis(20));
    t.now();
    referenceFailure.set(new IllegalStateException("database down"));
    int before = samples.get();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> t.now() != null && samples.get() > before + 2);
    assertThat(near(offsetOf(t), Duration.ofSeconds(4))).isTrue();
  }

  @Test
  void nanosUntil_realTime() {
    referenceOffset.set(Duration.ofSeconds(60));
    TimeSource t = TimeSource.following(reference, Duration.ofHours(1));
    Instant now = t.now();

    assertThat(t.nanosUntil(now.minusSeconds(1))).isZero();
    assertThat(t.nanosUntil(now.plusSeconds(10)))
        .isBetween(Duration.ofSeconds(9).toNanos(), Duration.ofSeconds(10).toNanos());
  }

  @Test
  void following_badArguments_rejected() {
    assertThatThrownBy(() -> TimeSource.following(null, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reference");
    assertThatThrownBy(() -> TimeSource.following(reference, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
  }

  /**
   * Local clocks the test moves: the wall clock, the monotonic clock, and the reference (the
   * database's clock), each stepped on its own.
   */
  private static final class Clocks {
    static final Instant T = Instant.parse("2026-12-05T12:00:00Z");
    final AtomicReference<Instant> wall = new AtomicReference<>(T);
    final java.util.concurrent.atomic.AtomicLong mono =
        new java.util.concurrent.atomic.AtomicLong(5);
    final AtomicReference<Instant> ref = new AtomicReference<>(T.plusSeconds(30));
    final AtomicInteger asked = new AtomicInteger();

    FollowingTimeSource source() {
      return new FollowingTimeSource(
          () -> {
            asked.incrementAndGet();
            return ref.get();
          },
          Duration.ofHours(1),
          wall::get,
          mono::get);
    }

    /** Real time passes: every clock moves on together. */
    void pass(Duration d) {
      wall.set(wall.get().plus(d));
      mono.addAndGet(d.toNanos());
      ref.set(ref.get().plus(d));
    }
  }

  /**
   * Between samples the time runs on the monotonic clock: a step of the local wall clock (an NTP
   * correction) no longer moves it, so fires neither run early (step forward) nor late (step back)
   * until the next sample; and the step makes that sample come at once, not at the period's end.
   * Before, the time was the wall clock plus the offset, and moved with every step.
   */
  @Test
  void localWallClockSteps_timeKeepsToTheReference_andIsSampledAgainAtOnce() {
    for (Duration step : new Duration[] {Duration.ofHours(1), Duration.ofMinutes(-10)}) {
      Clocks c = new Clocks();
      FollowingTimeSource t = c.source();
      assertThat(t.now()).isEqualTo(c.ref.get());
      c.pass(Duration.ofSeconds(3));
      assertThat(t.now()).isEqualTo(c.ref.get());
      assertThat(c.asked).as("no sample within the period").hasValue(1);

      c.wall.set(c.wall.get().plus(step));

      assertThat(t.now()).as("the reference's time, not moved by the step").isEqualTo(c.ref.get());
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(c.asked).hasValue(2));
      c.pass(Duration.ofSeconds(1));
      assertThat(t.now()).isEqualTo(c.ref.get());
      assertThat(t.offset()).isEqualTo(Duration.ofSeconds(30).minus(step));
    }
  }

  /**
   * A machine resumed after a pause: the wall clock and the reference moved on, the monotonic clock
   * did not count the pause. The time is behind until the sample that the wall clock's move starts
   * at once.
   */
  @Test
  void resumedFromAPause_sampledAgainAtOnce() {
    Clocks c = new Clocks();
    FollowingTimeSource t = c.source();
    t.now();
    c.wall.set(c.wall.get().plus(Duration.ofMinutes(20)));
    c.ref.set(c.ref.get().plus(Duration.ofMinutes(20)));

    t.now(); // behind by the pause, and starts a sample
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(t.now()).isEqualTo(c.ref.get()));
  }
}
