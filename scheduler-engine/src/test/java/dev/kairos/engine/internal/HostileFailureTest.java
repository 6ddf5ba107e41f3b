package dev.kairos.engine.internal;

import static java.time.Duration.ofMillis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Overlap;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A handler may throw anything: an exception whose {@code toString()} throws or returns null, or
 * whose message holds a NUL or half of a surrogate pair. Each run is still recorded (its error text
 * made storable), reported to listeners with the throwable itself, and the job keeps its schedule.
 * Before, such a run was an "unexpected engine failure" that dropped the job from memory until the
 * next start, and on PostgreSQL a NUL failed the write-back of every run in its batch, retried
 * without end.
 */
class HostileFailureTest {
  /** A failure whose message cannot be read: its toString() throws. */
  static final class MessageThrows extends RuntimeException {
    private static final long serialVersionUID = 1L;

    @Override
    public String getMessage() {
      throw new UnsupportedOperationException("no message");
    }
  }

  /** A failure whose toString() returns null. */
  static final class NullText extends RuntimeException {
    private static final long serialVersionUID = 1L;

    @Override
    public String toString() {
      return null;
    }
  }

  /** A failure whose cause cannot be printed (a logger printing the stack trace meets it). */
  static final class HostileCause extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HostileCause() {
      super("outer", new MessageThrows());
    }
  }

  private static final String ISE = "java.lang.IllegalStateException: ";

  static Stream<Arguments> failures() {
    String name = HostileFailureTest.class.getName();
    // 33 characters of class name and ": ", then a pair at indexes 1996-1997, across the cut at
    // 1997
    String straddling = "x".repeat(1963) + "\uD83D\uDE80 tail";
    return Stream.of(
        Arguments.of(
            "toString throws",
            (Supplier<RuntimeException>) MessageThrows::new,
            name + "$MessageThrows (its toString() threw java.lang.UnsupportedOperationException)"),
        Arguments.of(
            "toString null",
            (Supplier<RuntimeException>) NullText::new,
            name + "$NullText (its toString() returned null)"),
        Arguments.of(
            "cause cannot be printed",
            (Supplier<RuntimeException>) HostileCause::new,
            name + "$HostileCause: outer"),
        Arguments.of(
            "NUL",
            (Supplier<RuntimeException>) () -> new IllegalStateException("bad\0byte"),
            ISE + "bad\\u0000byte"),
        Arguments.of(
            "unpaired surrogates",
            (Supplier<RuntimeException>) () -> new IllegalStateException("a\uD800b\uDC00c"),
            ISE + "a\\ud800b\\udc00c"),
        Arguments.of(
            "a pair kept whole",
            (Supplier<RuntimeException>) () -> new IllegalStateException("ok \uD83D\uDE80"),
            ISE + "ok \uD83D\uDE80"),
        Arguments.of(
            "a pair across the cut",
            (Supplier<RuntimeException>) () -> new IllegalStateException(straddling),
            ISE + "x".repeat(1963) + "..."));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failures")
  void hostileFailure_isRecordedStorablyAndTheJobKeepsItsSchedule(
      String what, Supplier<RuntimeException> failure, String expectedError) {
    List<Throwable> reported = new CopyOnWriteArrayList<>();
    SchedulerListener listener =
        new SchedulerListener() {
          @Override
          public void runFailed(JobContext c, Throwable error, boolean willRetry) {
            reported.add(error);
          }
        };
    Harness h =
        firedAtEachSlot(
            Kairos.builder().listener(listener),
            ctx -> {
              throw failure.get();
            },
            null);

    JobInfo info = h.scheduler.job("t").orElseThrow();
    assertThat(info.runCount()).isEqualTo(4);
    assertThat(info.failureCount()).isEqualTo(4);
    assertThat(info.lastOutcome()).isEqualTo(RunOutcome.FAILURE);
    assertThat(info.lastError()).isEqualTo(expectedError);
    assertThat(h.scheduler.history("t", 10))
        .hasSize(4)
        .extracting(RunRecord::error)
        .containsOnly(expectedError);
    assertThat(reported).hasSize(4).allMatch(t -> t.getClass() == failure.get().getClass());
  }

  /** The same under {@code allow(n)}, whose runs are written back apart (concurrent runs). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("failures")
  void hostileFailure_underAllow_isRecordedStorablyAndTheJobKeepsItsSchedule(
      String what, Supplier<RuntimeException> failure, String expectedError) {
    Harness h =
        firedAtEachSlot(
            Kairos.builder(),
            ctx -> {
              throw failure.get();
            },
            Overlap.allow(2));

    assertThat(h.scheduler.history("t", 10))
        .hasSize(4)
        .extracting(RunRecord::error)
        .containsOnly(expectedError);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failures")
  void listenerThrowingHostileFailure_isLoggedAndTheJobKeepsItsSchedule(
      String what, Supplier<RuntimeException> failure, String expectedError) {
    SchedulerListener bad =
        new SchedulerListener() {
          @Override
          public void runStarted(JobContext context) {
            throw failure.get();
          }

          @Override
          public void runSucceeded(JobContext context, Duration took) {
            throw failure.get();
          }
        };
    Harness h = firedAtEachSlot(Kairos.builder().listener(bad), ctx -> {}, null);

    JobInfo info = h.scheduler.job("t").orElseThrow();
    assertThat(info.runCount()).isEqualTo(4);
    assertThat(info.lastOutcome()).isEqualTo(RunOutcome.SUCCESS);
  }

  /**
   * A listener that throws an Error (a metrics listener whose optional dependency is missing throws
   * NoClassDefFoundError; an assertion in a test listener) is logged and ignored like one that
   * throws an exception. Before, the Error went up the worker's stack: the job was dropped from
   * memory and the worker thread died.
   */
  @ParameterizedTest
  @ValueSource(
      classes = {NoClassDefFoundError.class, AssertionError.class, StackOverflowError.class})
  void listenerThrowingAnError_isLoggedAndTheJobKeepsItsSchedule(Class<? extends Error> type) {
    SchedulerListener bad =
        new SchedulerListener() {
          @Override
          public void runStarted(JobContext context) {
            throw newError(type);
          }

          @Override
          public void runFailed(JobContext context, Throwable error, boolean willRetry) {
            throw newError(type);
          }
        };
    AtomicInteger calls = new AtomicInteger();
    Harness h =
        firedAtEachSlot(
            Kairos.builder().listener(bad),
            ctx -> {
              if (calls.incrementAndGet() % 2 == 0) {
                throw new IllegalStateException("every other run fails");
              }
            },
            null);

    JobInfo info = h.scheduler.job("t").orElseThrow();
    assertThat(info.runCount()).isEqualTo(4);
    assertThat(info.failureCount()).isEqualTo(2);
  }

  /**
   * A job "t" at a 300 ms fixed rate with the given overlap policy (null: the default), run from 0
   * to 900 ms on a controllable clock; asserts that each of its four slots fired.
   */
  private static Harness firedAtEachSlot(Kairos.Builder builder, Job body, Overlap overlap) {
    Harness h = new Harness(new InMemoryStore(), builder, body);
    JobSpec spec = JobSpec.named("t").handler("h").fixedRate(ofMillis(300));
    h.scheduler.schedule(overlap == null ? spec : spec.overlap(overlap));
    h.runUntil(Harness.T0.plusMillis(900));
    assertThat(h.fires()).containsExactly(0L, 300L, 600L, 900L);
    return h;
  }

  private static Error newError(Class<? extends Error> type) {
    if (type == AssertionError.class) {
      return new AssertionError("from a listener");
    }
    return type == StackOverflowError.class
        ? new StackOverflowError("from a listener")
        : new NoClassDefFoundError("io/metrics/Missing");
  }
}
