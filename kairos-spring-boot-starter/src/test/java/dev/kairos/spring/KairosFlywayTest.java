package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.Scheduler;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Kairos's Flyway next to Spring Boot's, on the application's DataSource: an application without
 * migrations of its own still starts on a database that has tables (Boot's Flyway, switched on by
 * the Flyway that kairos-jdbc brings, is kept off), and one with its own migrations has them
 * applied by Boot into {@code flyway_schema_history} while Kairos's scripts go to {@code
 * kairos_schema_history}.
 */
class KairosFlywayTest {
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({
    DataSourceAutoConfiguration.class,
    FlywayAutoConfiguration.class,
    KairosAutoConfiguration.class
  })
  static class App {}

  private static ConfigurableApplicationContext start(String url, String... properties) {
    List<String> all =
        new ArrayList<>(List.of("spring.datasource.url=" + url, "spring.datasource.username=sa"));
    all.addAll(List.of(properties));
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(all.toArray(String[]::new))
        .run();
  }

  @Test
  void appWithoutMigrations_onDatabaseWithTables_startsAndBootsFlywayStaysOff() throws Exception {
    String url = "jdbc:h2:mem:kairos-flyway-none;DB_CLOSE_DELAY=-1";
    sql(url, "CREATE TABLE app_customers (id INT PRIMARY KEY)");

    try (ConfigurableApplicationContext ctx = start(url)) {
      assertThat(ctx.getEnvironment().getProperty(KairosFlywayDefaults.ENABLED)).isEqualTo("false");
      ctx.getBean(Scheduler.class).stats();
      assertThat(tables(url))
          .contains("kairos_schema_history")
          .doesNotContain("flyway_schema_history");
    }
  }

  @Test
  void appWithOwnMigrations_bootAndKairosKeepSeparateHistories() throws Exception {
    String url = "jdbc:h2:mem:kairos-flyway-own;DB_CLOSE_DELAY=-1";

    try (ConfigurableApplicationContext ctx =
        start(url, "spring.flyway.locations=classpath:app/migration")) {
      ctx.getBean(Scheduler.class).stats();
      assertThat(tables(url))
          .contains("APP_ORDERS", "flyway_schema_history", "kairos_schema_history");
      assertThat(scripts(url, "flyway_schema_history")).containsExactly("V1__app_orders.sql");
      assertThat(scripts(url, "kairos_schema_history"))
          .containsExactlyElementsOf(dev.kairos.jdbc.internal.Migrations.SCRIPTS);
    }
    // Started again: both histories are at their latest, nothing is applied twice.
    try (ConfigurableApplicationContext ctx =
        start(url, "spring.flyway.locations=classpath:app/migration")) {
      ctx.getBean(Scheduler.class).stats();
      assertThat(scripts(url, "flyway_schema_history")).containsExactly("V1__app_orders.sql");
      assertThat(scripts(url, "kairos_schema_history"))
          .hasSize(dev.kairos.jdbc.internal.Migrations.latest());
    }
  }

  private static void sql(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static List<String> tables(String url) throws SQLException {
    return strings(
        url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC'");
  }

  /** The scripts a Flyway history table lists, in the order they were applied. */
  private static List<String> scripts(String url, String table) throws SQLException {
    return strings(
        url,
        "SELECT \"script\" FROM \""
            + table
            + "\" WHERE \"type\" = 'SQL' ORDER BY \"installed_rank\"");
  }

  private static List<String> strings(String url, String query) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }
}
