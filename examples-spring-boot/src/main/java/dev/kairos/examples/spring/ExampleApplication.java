package dev.kairos.examples.spring;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import java.time.Duration;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application whose jobs live in Kairos: two annotated recurring jobs ({@link
 * ReportJobs}), one {@code Job} bean ({@link InvoiceExport}) scheduled from code, and Actuator's
 * health, metrics and kairos endpoints on http://localhost:8080/actuator. Jobs are stored in
 * embedded H2 in ./kairos-spring-data; {@code --spring.profiles.active=postgres} stores them in
 * PostgreSQL on 127.0.0.1:5432 instead.
 */
@SpringBootApplication
public class ExampleApplication {

  /**
   * Starts the application.
   *
   * @param args Spring Boot's command-line arguments, for example {@code
   *     --spring.profiles.active=postgres}
   */
  public static void main(String[] args) {
    SpringApplication.run(ExampleApplication.class, args);
  }

  /** Schedules the export at every start: an upsert, so its stored state is kept. */
  @Bean
  ApplicationRunner scheduleExport(Scheduler scheduler) {
    return args ->
        scheduler.schedule(
            JobSpec.named("invoice-export")
                .handler("invoiceExport")
                .fixedDelay(Duration.ofMinutes(2))
                .data("{\"format\": \"csv\"}"));
  }
}
