package dev.kairos.examples.springtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobInfo;
import dev.kairos.JobState;
import dev.kairos.Scheduler;
import dev.kairos.engine.ManualClock;
import dev.kairos.examples.spring.ExampleApplication;
import dev.kairos.examples.spring.ReportJobs;
import dev.kairos.spring.KairosCustomizer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Boots the example on a manual clock, lets its cron job fire, uses the Actuator endpoints over
 * HTTP, restarts it and finds the stored state kept.
 */
class ExampleApplicationTest {
  static final Instant T0 = Instant.parse("2026-03-02T10:00:30Z");
  static final Instant FIRST_MINUTE = Instant.parse("2026-03-02T10:01:00Z");

  @TempDir Path dir;
  final HttpClient http = HttpClient.newHttpClient();

  /** The clock the scheduler runs on, per application start. */
  @Configuration
  static class ClockAt {
    static volatile Instant start = T0;

    @Bean
    ManualClock clock() {
      return new ManualClock(start);
    }

    @Bean
    KairosCustomizer manualClock(ManualClock clock) {
      return b -> b.clock(clock);
    }
  }

  private ConfigurableApplicationContext start(Instant now) {
    ClockAt.start = now;
    return new SpringApplicationBuilder(ExampleApplication.class, ClockAt.class)
        .run(
            "--server.port=0",
            "--kairos.store.h2-directory=" + dir); // args beat application.properties
  }

  private HttpResponse<String> call(
      ConfigurableApplicationContext app, String method, String path, String body)
      throws Exception {
    String port = app.getEnvironment().getProperty("local.server.port");
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json");
    request =
        body == null
            ? request.method(method, HttpRequest.BodyPublishers.noBody())
            : request.method(method, HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void cronJobFires_endpointsAnswer_andARestartKeepsTheStoredState() throws Exception {
    Instant afterFirstRun;
    try (ConfigurableApplicationContext app = start(T0)) {
      ReportJobs jobs = app.getBean(ReportJobs.class);
      app.getBean(ManualClock.class).advance(Duration.ofSeconds(30));
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> jobs.runs().contains("minute-report@" + FIRST_MINUTE));
      Scheduler scheduler = app.getBean(Scheduler.class);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> scheduler.job("minute-report").orElseThrow().runCount() == 1);
      afterFirstRun = app.getBean(ManualClock.class).now();

      HttpResponse<String> health = call(app, "GET", "/actuator/health", null);
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"kairos\"").contains("\"queuedJobs\"");

      HttpResponse<String> list = call(app, "GET", "/actuator/kairos", null);
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(list.body()).contains("minute-report", "heartbeat", "invoice-export");

      HttpResponse<String> pause =
          call(app, "POST", "/actuator/kairos/heartbeat", "{\"action\":\"pause\"}");
      assertThat(pause.statusCode()).isEqualTo(200);
      assertThat(pause.body()).contains("\"done\":true");

      HttpResponse<String> runs =
          call(app, "GET", "/actuator/metrics/kairos.runs.finished?tag=key:minute-report", null);
      assertThat(runs.statusCode()).isEqualTo(200);
      assertThat(runs.body()).contains("\"value\":1.0");
    }

    try (ConfigurableApplicationContext app = start(afterFirstRun)) {
      Scheduler scheduler = app.getBean(Scheduler.class);
      JobInfo minute = scheduler.job("minute-report").orElseThrow();
      assertThat(minute.runCount()).isEqualTo(1);
      assertThat(minute.nextFireTime()).isEqualTo(FIRST_MINUTE.plusSeconds(60));
      assertThat(scheduler.job("heartbeat").orElseThrow().state()).isEqualTo(JobState.PAUSED);
    }
  }
}
