package dev.kairos.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A fresh, empty database for one run: an H2 file in its own directory, a PostgreSQL schema of its
 * own, or a MariaDB database of its own. Closing it deletes the directory or drops the schema or
 * database, so no run ever sees another's tables.
 */
sealed interface Store extends AutoCloseable
    permits Store.H2File, Store.PostgresSchema, Store.MariaDbDatabase {

  String url();

  String user();

  String password();

  /** Which of each product's scripts applies: "h2", "postgres" or "mariadb". */
  String dialect();

  @Override
  void close();

  /** A new H2 file database {@code name} in a new directory under {@code root}. */
  static H2File h2(Path root, String name) {
    try {
      Files.createDirectories(root);
      return new H2File(Files.createTempDirectory(root.toAbsolutePath(), name + "-"), name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A new schema in the PostgreSQL database at {@code baseUrl}. */
  static PostgresSchema postgres(String baseUrl, String user, String password, String name) {
    String schema =
        ("bench_" + name + "_" + UUID.randomUUID().toString().substring(0, 8))
            .replace('-', '_')
            .toLowerCase(Locale.ROOT);
    PostgresSchema s = new PostgresSchema(baseUrl, user, password, schema);
    s.execute("CREATE SCHEMA " + schema);
    return s;
  }

  /**
   * A new database ({@code utf8mb4}) on the MariaDB server of {@code url}, a URL of any database
   * there ({@code jdbc:mariadb://host:port/db[?options]}), which is used only to create and drop
   * it.
   */
  static MariaDbDatabase mariadb(String url, String user, String password, String name) {
    String database =
        ("bench_" + name + "_" + UUID.randomUUID().toString().substring(0, 8))
            .replace('-', '_')
            .toLowerCase(Locale.ROOT);
    MariaDbDatabase d = new MariaDbDatabase(url, user, password, database);
    d.execute("CREATE DATABASE " + database + " CHARACTER SET utf8mb4");
    return d;
  }

  /** Runs a script of {@code ;}-separated statements ({@code --} comments allowed). */
  default void runScript(String script) {
    try (Connection c = DriverManager.getConnection(url(), user(), password());
        Statement st = c.createStatement()) {
      c.setAutoCommit(true);
      for (String sql : statements(script).toList()) {
        st.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("script failed on " + url(), e);
    }
  }

  /** Reads a class-path resource as UTF-8 text. */
  static String resource(String path) {
    try (InputStream in = Store.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("resource not found: " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Stream<String> statements(String script) {
    StringBuilder sb = new StringBuilder();
    for (String line : script.split("\n")) {
      String l = line.strip();
      if (!l.startsWith("--") && !l.startsWith("#")) {
        sb.append(line).append('\n');
      }
    }
    return Stream.of(sb.toString().split(";"))
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .filter(s -> !s.equalsIgnoreCase("commit"));
  }

  /**
   * An H2 database in a file of its own directory, deleted on close. Its URL has the settings of
   * {@code JdbcStore.h2(dir)} ({@code WRITE_DELAY=0}: each commit is written to the file before it
   * returns; no compaction at close), so every product gets the same durability from H2.
   */
  record H2File(Path dir, String name) implements Store {
    @Override
    public String url() {
      return "jdbc:h2:file:"
          + dir.resolve(name).toAbsolutePath()
          + ";WRITE_DELAY=0;MAX_COMPACT_TIME=0";
    }

    @Override
    public String user() {
      return "sa";
    }

    @Override
    public String password() {
      return "";
    }

    @Override
    public String dialect() {
      return "h2";
    }

    @Override
    public void close() {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(H2File::deleteQuietly);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static void deleteQuietly(Path p) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        System.err.println("could not delete " + p + ": " + e);
      }
    }
  }

  /** A schema of its own in a PostgreSQL database, dropped on close. */
  record PostgresSchema(String baseUrl, String user, String password, String schema)
      implements Store {
    @Override
    public String url() {
      return baseUrl + (baseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    @Override
    public String dialect() {
      return "postgres";
    }

    @Override
    public void close() {
      execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    void execute(String sql) {
      try (Connection c = DriverManager.getConnection(baseUrl, user, password);
          Statement st = c.createStatement()) {
        st.execute(sql);
      } catch (SQLException e) {
        throw new IllegalStateException(sql + " failed on " + baseUrl, e);
      }
    }
  }

  /**
   * A database of its own on a MariaDB server, dropped on close. {@code adminUrl} names any
   * existing database of the server; {@link #url()} is the same URL with this database instead.
   */
  record MariaDbDatabase(String adminUrl, String user, String password, String database)
      implements Store {
    @Override
    public String url() {
      int slash = adminUrl.indexOf('/', adminUrl.indexOf("//") + 2);
      if (slash < 0) {
        return adminUrl + "/" + database;
      }
      int end = adminUrl.indexOf('?', slash);
      return adminUrl.substring(0, slash + 1) + database + (end < 0 ? "" : adminUrl.substring(end));
    }

    @Override
    public String dialect() {
      return "mariadb";
    }

    @Override
    public void close() {
      execute("DROP DATABASE IF EXISTS " + database);
    }

    void execute(String sql) {
      try (Connection c = DriverManager.getConnection(adminUrl, user, password);
          Statement st = c.createStatement()) {
        st.execute(sql);
      } catch (SQLException e) {
        throw new IllegalStateException(sql + " failed on " + adminUrl, e);
      }
    }
  }
}
