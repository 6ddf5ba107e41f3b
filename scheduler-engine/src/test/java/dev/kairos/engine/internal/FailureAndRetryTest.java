package dev.kairos.engine.internal;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobContext;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Retry;
import dev.kairos.RunOutcome;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FailureAndRetryTest {

  @Test
  void throwingJob_isRecordedReportedAndKeepsItsSchedule() {
    List<String> events = new CopyOnWriteArrayList<>();
    SchedulerListener listener =
        new SchedulerListener() {
          @Override
          public void runFailed(JobContext c, Throwable error, boolean willRetry) {
            events.add(
                c.key()
                    + "@"
                    + Harness.ms(c.scheduledFireTime())
                    + ":"
                    + error.getMessage()
                    + ":"
                    + willRetry);
          }
        };
    Harness h =
        new Harness(
            new InMemoryStore(),
            Kairos.builder().listener(listener),
            ctx -> {
              throw new IllegalStateException("boom " + Harness.ms(ctx.scheduledFireTime()));
            });
    h.scheduler.schedule(JobSpec.named("t").handler("h").fixedRate(ofMillis(300)));

    h.runUntil(Harness.T0.plusMillis(900));

    assertThat(h.fires()).containsExactly(0L, 300L, 600L, 900L);
    assertThat(events)
        .containsExactly(
            "t@0:boom 0:false",
            "t@300:boom 300:false",
            "t@600:boom 600:false",
            "t@900:boom 900:false");
    JobInfo info = h.scheduler.job("t").orElseThrow();
    assertThat(info.failureCount()).isEqualTo(4);
    assertThat(info.runCount()).isEqualTo(4);
    assertThat(info.lastOutcome()).isEqualTo(RunOutcome.FAILURE);
    assertThat(info.lastError()).contains("IllegalStateException", "boom 900");
    assertThat(h.scheduler.history("t", 2))
        .extracting(r -> Harness.ms(r.scheduledFireTime()))
        .containsExactly(900L, 600L);
  }

  @Test
  void retryBackoff_doublesTheDelayAndCountsAttempts_thenTimetableResumes() {
    AtomicInteger calls = new AtomicInteger();
    Harness h =
        new Harness(
            ctx -> {
              if (calls.incrementAndGet() <= 3) {
                throw new RuntimeException("fail " + ctx.attempt());
              }
            });
    h.scheduler.schedule(
        JobSpec.named("r")
            .handler("h")
            .fixedRate(ofSeconds(60))
            .retry(Retry.backoff(4, ofSeconds(1))));

    h.runUntil(Harness.T0.plusSeconds(60));

    // Fire 0 fails at 0, retried at 1 s, 3 s (1+2), 7 s (3+4), succeeding on attempt 4.
    assertThat(h.starts()).containsExactly(0L, 1000L, 3000L, 7000L, 60_000L);
    assertThat(h.runs).extracting(JobContext::attempt).containsExactly(1, 2, 3, 4, 1);
    assertThat(h.fires()).containsExactly(0L, 0L, 0L, 0L, 60_000L);
  }

  @Test
  void retryExhausted_givesUpUntilTheNextFire() {
    Harness h =
        new Harness(
            ctx -> {
              throw new RuntimeException("always");
            });
    h.scheduler.schedule(
        JobSpec.named("r")
            .handler("h")
            .fixedRate(ofSeconds(60))
            .retry(Retry.backoff(2, ofSeconds(5))));

    h.runUntil(Harness.T0.plusSeconds(60));

    assertThat(h.starts()).containsExactly(0L, 5000L, 60_000L);
    assertThat(h.runs).extracting(JobContext::attempt).containsExactly(1, 2, 1);
  }

  @Test
  void listenerThatThrows_doesNotStopTheJob() {
    SchedulerListener bad =
        new SchedulerListener() {
          @Override
          public void runStarted(JobContext context) {
            throw new IllegalStateException("listener bug");
          }
        };
    Harness h = new Harness(new InMemoryStore(), Kairos.builder().listener(bad), ctx -> {});
    h.scheduler.schedule(JobSpec.named("j").handler("h").fixedRate(ofSeconds(1)));

    h.runUntil(Harness.T0.plusSeconds(2));

    assertThat(h.fires()).containsExactly(0L, 1000L, 2000L);
  }
}
