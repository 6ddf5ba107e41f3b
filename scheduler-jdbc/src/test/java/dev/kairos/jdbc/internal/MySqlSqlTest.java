package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.StoreException;
import java.lang.reflect.Proxy;
import java.sql.DatabaseMetaData;
import org.junit.jupiter.api.Test;

/** How a MySQL-family server is told apart, by the product and version its driver reports. */
class MySqlSqlTest {
  @Test
  void of_mySql8_isMySql() throws Exception {
    assertThat(Dialect.of(metaData("MySQL", "8.0.36", "jdbc:mysql://h/app")))
        .isEqualTo(Dialect.MYSQL);
    assertThat(Dialect.of(metaData("MySQL", "8.4.3", "jdbc:mysql://h/app")))
        .isEqualTo(Dialect.MYSQL);
    assertThat(Dialect.of(metaData("MySQL", "9.1.0-commercial", "jdbc:mysql://h/app")))
        .isEqualTo(Dialect.MYSQL);
  }

  @Test
  void of_mySqlOlderThan8017_failsNamingTheVersion() {
    assertThatThrownBy(() -> Dialect.of(metaData("MySQL", "8.0.16", "jdbc:mysql://h/app")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("MySQL 8.0.16 is not supported")
        .hasMessageContaining("8.0.17 or newer");
    assertThatThrownBy(() -> Dialect.of(metaData("MySQL", "5.7.44-log", "jdbc:mysql://h/app")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("MySQL 5.7.44-log is not supported");
  }

  /** MySQL Connector/J reports a MariaDB server as "MySQL", with MariaDB in the version. */
  @Test
  void of_mariaDbThroughEitherDriver_isMariaDb() throws Exception {
    assertThat(Dialect.of(metaData("MySQL", "5.5.5-10.11.19-MariaDB-0+deb12u1", "jdbc:mysql:/")))
        .isEqualTo(Dialect.MARIADB);
    assertThat(Dialect.of(metaData("MariaDB", "10.11.19-MariaDB", "jdbc:mariadb://h/app")))
        .isEqualTo(Dialect.MARIADB);
  }

  /** The test hook gives the MySQL dialect to the connections it names, and to no others. */
  @Test
  void of_forcedUrl_isMySqlWhateverTheServer() throws Exception {
    MySqlSql.forceFor("jdbc:mysql://h:3306/forced");
    try {
      assertThat(
              Dialect.of(metaData("MySQL", "5.5.5-10.11.19-MariaDB", "jdbc:mysql://h:3306/forced")))
          .isEqualTo(Dialect.MYSQL);
      assertThat(
              Dialect.of(metaData("MySQL", "5.5.5-10.11.19-MariaDB", "jdbc:mysql://h:3306/other")))
          .isEqualTo(Dialect.MARIADB);
    } finally {
      MySqlSql.unforce("jdbc:mysql://h:3306/forced");
    }
    assertThat(
            Dialect.of(metaData("MySQL", "5.5.5-10.11.19-MariaDB", "jdbc:mysql://h:3306/forced")))
        .isEqualTo(Dialect.MARIADB);
  }

  @Test
  void atLeastOldest_comparesVersionNumbers() {
    assertThat(MySqlSql.atLeastOldest("8.0.17")).isTrue();
    assertThat(MySqlSql.atLeastOldest("8.1.0")).isTrue();
    assertThat(MySqlSql.atLeastOldest("10.0.0")).isTrue();
    assertThat(MySqlSql.atLeastOldest("8.0.9")).isFalse();
    assertThat(MySqlSql.atLeastOldest("7.9.99")).isFalse();
    assertThat(MySqlSql.atLeastOldest("unknown")).isFalse();
    assertThat(MySqlSql.atLeastOldest(null)).isFalse();
  }

  /** MySQL stamps are a bound parameter; the rest is MariaDB's (folder aside). */
  @Test
  void nextChange_isTheParameterChangeStampsBinds() {
    assertThat(Dialect.MYSQL.nextChange("kairos_")).isEqualTo(":change_seq");
    assertThat(Dialect.MARIADB.nextChange("kairos_")).isEqualTo("NEXT VALUE FOR kairos_change_seq");
    assertThat(Dialect.MYSQL.folder()).isEqualTo("mysql");
    assertThat(Dialect.MYSQL.isolation()).isEqualTo(java.sql.Connection.TRANSACTION_READ_COMMITTED);
  }

  private static DatabaseMetaData metaData(String product, String version, String url) {
    return (DatabaseMetaData)
        Proxy.newProxyInstance(
            MySqlSqlTest.class.getClassLoader(),
            new Class<?>[] {DatabaseMetaData.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getDatabaseProductName" -> product;
                  case "getDatabaseProductVersion" -> version;
                  case "getURL" -> url;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }
}
