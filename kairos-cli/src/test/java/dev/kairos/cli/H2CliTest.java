package dev.kairos.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.jdbc.JdbcStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI over an H2 file database with a user and password. */
class H2CliTest extends CliContract {
  @TempDir static Path dir;

  @Override
  String url() {
    return "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
  }

  @Override
  List<String> storeOptions() {
    return List.of("--url", url(), "--user", "ops", "--password", "right");
  }

  @Override
  JdbcStore.Builder builder(String prefix) {
    return JdbcStore.builder().url(url()).user("ops").password("right").tablePrefix(prefix);
  }

  @Override
  Connection connect() throws Exception {
    return open(url(), "ops", "right");
  }

  @Test
  void wrongPassword_exits3WithOneLine() {
    assertFails(
        raw("--url", url(), "--user", "ops", "--password", "wrong", "jobs"),
        KairosCli.STORE,
        "Wrong user name or password");
  }

  @Test
  void h2FolderWithoutStore_exits3_andCreatesNothing(@TempDir Path empty) throws Exception {
    Path typo = empty.resolve("kairos-dat");
    assertFails(raw("--h2", typo.toString(), "jobs"), KairosCli.STORE, "no Kairos H2 store in");
    assertThat(typo).doesNotExist();
  }

  @Test
  void missingTables_exit3_sayingHowToCreateThem() {
    assertFails(
        raw("--url", url(), "--user", "ops", "--password", "right", "--prefix", "none_", "jobs"),
        KairosCli.STORE,
        "--create-schema");
  }
}
