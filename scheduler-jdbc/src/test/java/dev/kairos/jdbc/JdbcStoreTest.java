package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.StoreException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The builder's validation and the public surface, without a database. */
class JdbcStoreTest {
  @ParameterizedTest
  @ValueSource(strings = {"kairos_", "k", "_", "Jobs2_", "a234567890123456789012345678901"})
  void tablePrefix_plainIdentifier_accepted(String prefix) {
    assertThat(JdbcStore.builder().tablePrefix(prefix)).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "1abc",
        "a-b",
        "a b",
        "kairos;drop table x",
        "a2345678901234567890123456789012",
        "ä"
      })
  void tablePrefix_notAPlainIdentifier_rejectedNamingIt(String prefix) {
    assertThatThrownBy(() -> JdbcStore.builder().tablePrefix(prefix))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("table prefix")
        .hasMessageContaining("'" + prefix + "'");
  }

  @Test
  void builder_badValues_rejectedAtOnce() {
    assertThatThrownBy(() -> JdbcStore.builder().url("postgres://x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:");
    assertThatThrownBy(() -> JdbcStore.builder().historyPerJob(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> JdbcStore.builder().historyMaxAge(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JdbcStore.builder().poolSize(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JdbcStore.builder().dataSource(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JdbcStore.builder().h2(Path.of("/tmp/a;b")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JdbcStore.builder().joinCallerTransactions(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("callerTransactionOpen");
  }

  @Test
  void builder_contradictions_refused() {
    assertThatThrownBy(() -> JdbcStore.builder().h2(Path.of("x")).url("jdbc:h2:mem:x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already set");
    assertThatThrownBy(
            () -> JdbcStore.builder().url("jdbc:h2:mem:x").dataSource(fakeDataSource("H2")))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JdbcStore.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no database");
    assertThatThrownBy(() -> JdbcStore.builder().h2(Path.of("x")).user("sa").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("url");
    assertThatThrownBy(
            () -> JdbcStore.builder().dataSource(fakeDataSource("H2")).poolSize(3).build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(
            () ->
                JdbcStore.builder().url("jdbc:h2:mem:x").joinCallerTransactions(() -> true).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("joinCallerTransactions")
        .hasMessageContaining("dataSource");
  }

  @Test
  void clustered_offByDefault() {
    assertThat(JdbcStore.builder().url("jdbc:h2:mem:x").build().jobStore().clustered()).isFalse();
    assertThat(
            JdbcStore.builder().url("jdbc:h2:mem:x").clustered(true).build().jobStore().clustered())
        .isTrue();
  }

  /** Cluster mode needs a database other processes reach: an embedded H2 file is refused. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "jdbc:h2:file:/tmp/k",
        "jdbc:h2:/tmp/k",
        "jdbc:h2:async:/tmp/k;WRITE_DELAY=0",
        "jdbc:h2:~/k"
      })
  void clustered_embeddedH2Url_refused(String url) {
    assertThatThrownBy(() -> JdbcStore.builder().url(url).clustered(true).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cluster mode")
        .hasMessageContaining(url);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "jdbc:h2:tcp://db:9092/k",
        "jdbc:h2:ssl://db/k",
        "jdbc:h2:mem:k",
        "jdbc:h2:/tmp/k;AUTO_SERVER=TRUE",
        "jdbc:postgresql://db/k"
      })
  void clustered_sharedDatabaseUrl_accepted(String url) {
    assertThat(JdbcStore.builder().url(url).clustered(true).build().jobStore().clustered())
        .isTrue();
  }

  @Test
  void clustered_h2Folder_refused(@TempDir Path dir) {
    assertThatThrownBy(() -> JdbcStore.builder().h2(dir).clustered(true).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cluster mode")
        .hasMessageContaining("embedded H2");
  }

  /** The user's own data source is only known at open: an embedded H2 one is refused then. */
  @Test
  void clustered_usersEmbeddedH2DataSource_refusedAtOpen(@TempDir Path dir) {
    org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
    ds.setURL("jdbc:h2:" + dir.resolve("k"));
    JdbcStore store = JdbcStore.builder().dataSource(ds).clustered(true).build();

    assertThatThrownBy(store::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("cluster mode")
        .hasMessageContaining("embedded H2");
  }

  /**
   * An H2 file opened with AUTO_SERVER=TRUE is shared (the first process serves it): a clustered
   * store over it opens, whether built from the URL, from H2's data source or from a HikariCP pool
   * (the driver's own URL, which the store used to judge at open, drops the setting: each of these
   * was refused there, with the documented URL).
   */
  @ParameterizedTest
  @ValueSource(strings = {"url", "h2 data source", "hikari pool"})
  void clustered_autoServerFile_opens(String how, @TempDir Path dir) {
    String url = "jdbc:h2:file:" + dir.resolve("k") + ";AUTO_SERVER=TRUE";
    JdbcStore.Builder b = JdbcStore.builder().clustered(true);
    com.zaxxer.hikari.HikariDataSource pool = null;
    switch (how) {
      case "url" -> b.url(url);
      case "h2 data source" -> {
        org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
        ds.setURL(url);
        b.dataSource(ds);
      }
      default -> {
        pool = new com.zaxxer.hikari.HikariDataSource();
        pool.setJdbcUrl(url);
        b.dataSource(pool);
      }
    }
    try (JdbcStore store = b.build()) {
      store.open();
      assertThat(store.jobStore().clustered()).isTrue();
      assertThat(store.jobStore().find("x")).isEmpty();
    } finally {
      if (pool != null) {
        pool.close();
      }
    }
  }

  @Test
  void open_unsupportedDatabase_failsNamingProduct() {
    JdbcStore store = JdbcStore.of(fakeDataSource("Oracle"));

    assertThatThrownBy(store::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("Oracle 8.0")
        .hasMessageContaining("H2, PostgreSQL, MariaDB and MySQL");
  }

  /**
   * A MySQL older than 8.0.17 (the fake reports "8.0") is refused naming its version and the
   * reason: it lacks the collation job keys are compared with. Newer ones: {@code MySqlSqlTest}.
   */
  @Test
  void open_mysqlOlderThan8017_refusedSayingWhy() {
    JdbcStore store = JdbcStore.of(fakeDataSource("MySQL"));

    assertThatThrownBy(store::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("MySQL 8.0 is not supported")
        .hasMessageContaining("MySQL 8.0.17 or newer")
        .hasMessageContaining("utf8mb4_0900_bin");
  }

  @Test
  void open_unreachableDatabase_storeExceptionNamingIt() {
    JdbcStore store =
        JdbcStore.builder().url("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1").build();

    assertThatThrownBy(store::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("jdbc:postgresql://127.0.0.1:1/none");
  }

  /** No Jdbi, HikariCP or H2 type appears in a public signature of the public package. */
  @Test
  void publicSignatures_onlyJdkAndKairosTypes() {
    List<String> leaks = new ArrayList<>();
    for (Class<?> c : List.of(JdbcStore.class, JdbcStore.Builder.class)) {
      for (Method m : c.getDeclaredMethods()) {
        if (Modifier.isPublic(m.getModifiers())) {
          Stream.concat(
                  Stream.of(m.getGenericReturnType()), Stream.of(m.getGenericParameterTypes()))
              .filter(JdbcStoreTest::foreign)
              .forEach(t -> leaks.add(c.getSimpleName() + "." + m.getName() + ": " + t));
        }
      }
      for (Constructor<?> k : c.getConstructors()) {
        Stream.of(k.getGenericParameterTypes())
            .filter(JdbcStoreTest::foreign)
            .forEach(t -> leaks.add(k + ": " + t));
      }
    }
    assertThat(leaks).isEmpty();
    assertThat(JdbcStore.class.getConstructors()).isEmpty();
  }

  private static boolean foreign(Type t) {
    String name = t.getTypeName();
    return !(name.startsWith("java.")
        || name.startsWith("javax.")
        || name.startsWith("dev.kairos.") && !name.contains(".internal.")
        || name.equals("void")
        || name.equals("boolean")
        || name.equals("int")
        || name.equals("long"));
  }

  /** A data source whose connections say they are {@code product}, and do nothing else. */
  static DataSource fakeDataSource(String product) {
    DatabaseMetaData md =
        (DatabaseMetaData)
            Proxy.newProxyInstance(
                JdbcStoreTest.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class},
                (p, m, a) ->
                    switch (m.getName()) {
                      case "getDatabaseProductName" -> product;
                      case "getDatabaseProductVersion" -> "8.0";
                      default -> null;
                    });
    Connection connection =
        (Connection)
            Proxy.newProxyInstance(
                JdbcStoreTest.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (p, m, a) ->
                    switch (m.getName()) {
                      case "getMetaData" -> md;
                      case "getAutoCommit", "isClosed", "isReadOnly" ->
                          m.getName().equals("getAutoCommit");
                      case "getTransactionIsolation" -> Connection.TRANSACTION_READ_COMMITTED;
                      case "toString" -> "fake " + product + " connection";
                      case "hashCode" -> System.identityHashCode(p);
                      case "equals" -> p == a[0];
                      default -> null;
                    });
    return (DataSource)
        Proxy.newProxyInstance(
            JdbcStoreTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, a) ->
                switch (m.getName()) {
                  case "getConnection" -> connection;
                  case "toString" -> "fake " + product + " data source";
                  case "hashCode" -> System.identityHashCode(p);
                  case "equals" -> p == a[0];
                  default -> null;
                });
  }
}
