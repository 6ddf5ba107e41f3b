package dev.kairos.jdbc.internal;

import dev.kairos.StoreSetupException;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;

/**
 * The JDBC drivers the store works with, which the application adds: {@code kairos-jdbc} declares
 * them optional, so a PostgreSQL user does not carry H2 and a MariaDB or MySQL user not
 * PostgreSQL's driver. A URL whose driver is missing fails with the Maven coordinates to add, not
 * with "No suitable driver".
 */
final class Drivers {
  /** URL prefix → the Maven artifact ({@code groupId:artifactId}) that holds its driver. */
  static final Map<String, String> ARTIFACTS =
      Map.of(
          "jdbc:h2:", "com.h2database:h2",
          "jdbc:postgresql:", "org.postgresql:postgresql",
          "jdbc:mariadb:", "org.mariadb.jdbc:mariadb-java-client",
          "jdbc:mysql:", "com.mysql:mysql-connector-j");

  private Drivers() {}

  /**
   * Fails unless a driver on the class path accepts {@code url}.
   *
   * @throws StoreSetupException naming the artifact to add, for a URL of a supported database
   */
  static void require(String url) {
    try {
      DriverManager.getDriver(url);
    } catch (SQLException e) {
      String artifact =
          ARTIFACTS.entrySet().stream()
              .filter(a -> url.startsWith(a.getKey()))
              .map(Map.Entry::getValue)
              .findFirst()
              .orElse(null);
      throw new StoreSetupException(
          artifact == null
              ? "no JDBC driver on the class path accepts the URL "
                  + url.replaceAll("[?;].*", "")
                  + "; the JDBC store supports H2, PostgreSQL, MariaDB and MySQL"
              : "no JDBC driver for "
                  + url.replaceAll("[?;].*", "")
                  + " on the class path: add the dependency "
                  + artifact
                  + " to your application (see the README, 'Stores')",
          e);
    }
  }
}
