package dev.kairos.jdbc;

import dev.kairos.tck.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** An H2 database file in a test's temporary folder, as {@link JdbcStore#h2(Path)} makes it. */
record H2TestDatabase(Path dir) implements TestDatabase {
  @Override
  public JdbcStore.Builder builder() {
    return JdbcStore.builder().h2(dir);
  }

  @Override
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(
        JdbcStore.Builder.h2Url(dir.toAbsolutePath().resolve("kairos")));
  }
}
