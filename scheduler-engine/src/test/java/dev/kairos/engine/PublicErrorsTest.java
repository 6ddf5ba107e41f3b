package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every public method fails early and the same way: a null argument with a NullPointerException
 * naming the parameter, a call after close() with an IllegalStateException, a value a store cannot
 * hold with an IllegalArgumentException naming the job and the limit.
 */
class PublicErrorsTest {
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-05T00:00:00Z"));
  private final Scheduler scheduler =
      Kairos.builder()
          .store(new InMemoryStore())
          .clock(clock)
          .workers(1)
          .handler("h", ctx -> {})
          .build();
  private final JobSpec ok = JobSpec.named("k").handler("h").fixedRate(Duration.ofSeconds(1));

  @AfterEach
  void close() {
    scheduler.close();
  }

  static Stream<Arguments> keyedCalls() {
    Map<String, Consumer<Scheduler>> calls =
        Map.of(
            "job", s -> s.job(null),
            "pause", s -> s.pause(null),
            "resume", s -> s.resume(null),
            "triggerNow", s -> s.triggerNow(null),
            "unschedule", s -> s.unschedule(null),
            "history", s -> s.history(null, 5));
    return calls.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}(null)")
  @MethodSource("keyedCalls")
  void nullKey_isRefusedNamingTheParameter(String method, Consumer<Scheduler> call) {
    assertThatThrownBy(() -> call.accept(scheduler))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key must not be null");
  }

  @Test
  void nullSpec_isRefusedNamingTheParameter() {
    assertThatThrownBy(() -> scheduler.schedule(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("spec must not be null");
  }

  static Stream<Arguments> everyCall() {
    JobSpec spec = JobSpec.named("k").handler("h").fixedRate(Duration.ofSeconds(1));
    Map<String, Consumer<Scheduler>> calls =
        Map.of(
            "schedule", s -> s.schedule(spec),
            "job", s -> s.job("k"),
            "jobs", Scheduler::jobs,
            "pause", s -> s.pause("k"),
            "resume", s -> s.resume("k"),
            "triggerNow", s -> s.triggerNow("k"),
            "unschedule", s -> s.unschedule("k"),
            "history", s -> s.history("k", 5),
            "start", Scheduler::start);
    return calls.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0} after close()")
  @MethodSource("everyCall")
  void callAfterClose_isAnIllegalStateException(String method, Consumer<Scheduler> call) {
    scheduler.start();
    scheduler.schedule(ok);
    scheduler.close();

    assertThatThrownBy(() -> call.accept(scheduler))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void builderNulls_areRefusedNamingTheParameter() {
    Kairos.Builder b = Kairos.builder();
    Map<String, ThrowingCallable> calls =
        Map.of(
            "store", () -> b.store(null),
            "name", () -> b.handler(null, ctx -> {}),
            "job", () -> b.handler("x", null),
            "clock", () -> b.clock(null),
            "threadFactory", () -> b.threadFactory(null),
            "lookAhead", () -> b.lookAhead(null),
            "gracePeriod", () -> b.gracePeriod(null),
            "listener", () -> b.listener(null),
            "defaultZone", () -> b.defaultZone(null),
            "instanceId", () -> b.instanceId(null));
    calls.forEach(
        (param, call) ->
            assertThatThrownBy(call)
                .as(param)
                .isInstanceOf(NullPointerException.class)
                .hasMessage(param + " must not be null"));
  }

  @Test
  void overLongKey_isRefused_quotingOnlyItsStart() {
    String key = "k".repeat(300);

    assertThatThrownBy(() -> scheduler.schedule(JobSpec.named(key).handler("h").at(clock.now())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job key is 300 characters long, more than 200: '" + "k".repeat(40) + "...'");
  }

  @Test
  void overLongCronExpression_isRefusedBeforeTheStoreSeesIt() {
    String cron = "0 0 2 * * ?" + " ".repeat(400) + "2030";

    assertThatThrownBy(
            () -> scheduler.schedule(JobSpec.named("c").handler("h").cron(cron, ZoneOffset.UTC)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("job 'c': cron expression is 415 characters long, more than 400");
  }

  /** A key no job can have is refused by lookups and changes too, naming it, on every store. */
  @Test
  void keyWithControlCharacter_isRefusedByEveryCallTakingAKey() {
    String bad = "a\0b";
    String message = "job 'a\\u0000b': key contains a control character (\\u0000) at index 1";
    for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call :
        List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
            () -> scheduler.job(bad),
            () -> scheduler.pause(bad),
            () -> scheduler.resume(bad),
            () -> scheduler.triggerNow(bad),
            () -> scheduler.unschedule(bad),
            () -> scheduler.history(bad, 5))) {
      assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }
  }

  @Test
  void nulCharacter_isRefusedInKeyHandlerAndData() {
    assertThatThrownBy(() -> scheduler.schedule(JobSpec.named("a\0b").handler("h").at(clock.now())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job 'a\\u0000b': key contains a control character (\\u0000) at index 1");
    assertThatThrownBy(() -> scheduler.schedule(ok.handler("h\0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("job 'k': handler name 'h\\u0000' contains");
    assertThatThrownBy(() -> scheduler.schedule(ok.data("{\"a\":\"\0\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("job 'k': data contains a NUL character");
  }

  /**
   * H2, PostgreSQL and MariaDB all write an unpaired surrogate as a replacement character: data
   * holding one was accepted and the handler later got other data than was scheduled. Refused on
   * every store, naming the index; a pair (an emoji) is data like any other.
   */
  @Test
  void unpairedSurrogateInData_isRefusedNamingIt_aPairIsNot() {
    assertThatThrownBy(() -> scheduler.schedule(ok.data("cut \ud83d")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "job 'k': data contains an unpaired surrogate (\\ud83d) at index 4");
    assertThatThrownBy(() -> scheduler.scheduleAll(List.of(ok.data("\ude00 x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("job 'k': data contains an unpaired surrogate (\\ude00) at index 0");
    assertThat(scheduler.job("k")).isEmpty();
    scheduler.schedule(ok.data("smile \ud83d\ude00"));
    assertThat(scheduler.job("k").orElseThrow().spec().data()).contains("smile \ud83d\ude00");
  }

  /**
   * An instance id is written with every run: one holding a NUL failed every write-back on
   * PostgreSQL, retried without end; it is refused when the scheduler is built, naming it.
   */
  @Test
  void instanceIdWithControlCharacterOrUnpairedSurrogate_isRefusedNamingIt() {
    assertThatThrownBy(() -> Kairos.builder().instanceId("node\0a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("instance id 'node\\u0000a' contains a control character (\\u0000) at index 4");
    assertThatThrownBy(() -> Kairos.builder().instanceId("node-\uD800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "instance id 'node-\\ud800' contains an unpaired surrogate (\\ud800) at index 5");
    assertThatThrownBy(() -> Kairos.builder().instanceId(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("instance id must be 1 to 200 characters, not blank: ' '");
    assertThat(Kairos.builder().instanceId("node-\uD83D\uDE80")).isNotNull();
  }

  @Test
  void periodBelowOneMillisecond_isRefused() {
    assertThatThrownBy(() -> scheduler.schedule(ok.fixedRate(Duration.ofNanos(1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job 'k': fixed-rate period must be at least 1 ms: PT0.000000001S");
    assertThatThrownBy(
            () ->
                scheduler.schedule(
                    JobSpec.named("d").handler("h").fixedDelay(Duration.ofNanos(999_999))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job 'd': fixed delay must be at least 1 ms: PT0.000999999S");
    assertThat(scheduler.schedule(ok.fixedRate(Duration.ofMillis(1))).key()).isEqualTo("k");
  }

  @Test
  void secondKindOfScheduleOnOneSpec_isRefusedBySchedule() {
    assertThatThrownBy(() -> scheduler.schedule(ok.cron("0 0 2 * * ?")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("job 'k': two schedules set, FixedRate[period=PT1S] and then Cron[")
        .hasMessageEndingWith("a job has one schedule (schedule(Schedule) replaces it on purpose)");
    assertThat(scheduler.jobs()).isEmpty();
  }

  @Test
  void sameKindAgain_orScheduleOnPurpose_replacesTheSchedule() {
    assertThat(scheduler.schedule(ok.fixedRate(Duration.ofSeconds(2))).key()).isEqualTo("k");
    assertThat(
            ok.schedule(new dev.kairos.Schedule.FixedDelay(Duration.ofSeconds(1)))
                .conflictingSchedule())
        .isEmpty();
  }
}
