package dev.kairos.spring;

import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * Keeps Spring Boot's own Flyway off in applications that do not use it. {@code kairos-jdbc} brings
 * Flyway for its tables (history table {@code <prefix>schema_history}); on Spring Boot 3 that alone
 * would switch on Boot's Flyway auto-configuration, which migrates the application's DataSource
 * from {@code classpath:db/migration} and, finding no migrations but tables already there, fails
 * the start ("non-empty schema(s) ... but no schema history table").
 *
 * <p>So, unless the application says anything about Flyway ({@value #ENABLED}, {@code
 * spring.flyway.locations} or {@code spring.flyway.url}) or has the default location {@code
 * db/migration} on its class path, this sets {@value #ENABLED}=false as the lowest-precedence
 * default. An application with its own migrations keeps Boot's Flyway as it was, with its own
 * history table ({@code flyway_schema_history}), apart from Kairos's.
 */
final class KairosFlywayDefaults implements EnvironmentPostProcessor {
  static final String ENABLED = "spring.flyway.enabled";

  private static final List<String> INTENT =
      List.of(ENABLED, "spring.flyway.locations", "spring.flyway.url");

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (INTENT.stream().anyMatch(environment::containsProperty)) {
      return;
    }
    ClassLoader loader = application.getClassLoader();
    if (new DefaultResourceLoader(loader).getResource("classpath:db/migration").exists()) {
      return;
    }
    environment
        .getPropertySources()
        .addLast(new MapPropertySource("kairos-flyway-defaults", Map.of(ENABLED, "false")));
  }
}
