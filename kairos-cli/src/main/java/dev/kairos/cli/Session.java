package dev.kairos.cli;

import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.ClusterStore;
import java.nio.file.Path;
import java.util.Set;

/**
 * The store a command works on, opened at once so that a bad URL or password fails before anything
 * else, and a scheduler over it that is <em>never started</em>: it only carries changes (pause,
 * schedule, ...) through the {@code Scheduler} API, so every rule the engine keeps still holds, and
 * never fires a job.
 */
final class Session implements AutoCloseable {
  private final JdbcStore store;
  private Scheduler scheduler;

  Session(String url, Path h2, String user, String password, String prefix, boolean create) {
    if ((url == null) == (h2 == null)) {
      throw new KairosCli.CliException(
          KairosCli.USAGE, "name the store with exactly one of --url JDBC-URL or --h2 DIR");
    }
    JdbcStore.Builder b = JdbcStore.builder().createSchema(create).poolSize(2);
    if (url != null) {
      b.url(url);
      if (user != null) {
        b.user(user);
      }
      if (password != null) {
        b.password(password);
      }
    } else {
      if (!create && !java.nio.file.Files.exists(h2.resolve("kairos.mv.db"))) {
        // Opening would create an empty database there: a typo must not leave files behind.
        throw new KairosCli.CliException(
            KairosCli.STORE,
            "no Kairos H2 store in "
                + h2.toAbsolutePath()
                + " (kairos.mv.db missing; --create-schema makes one)");
      }
      b.h2(h2);
    }
    if (prefix != null) {
      b.tablePrefix(prefix);
    }
    store = b.build();
    try {
      store.open();
    } catch (dev.kairos.StoreException e) {
      store.close();
      if (!create && String.valueOf(e.getMessage()).contains("createSchema(true)")) {
        throw new KairosCli.CliException(
            KairosCli.STORE, KairosCli.oneLine(e) + " (this tool: --create-schema)");
      }
      throw e;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * The open store's SPI ({@link JdbcStore#jobStore()}), for reads the {@code Scheduler} API does
   * not offer: unreadable rows, claims, instances, the database clock.
   */
  ClusterStore store() {
    return store.jobStore();
  }

  /**
   * A scheduler over the store that accepts jobs for these handler names. It is never started, so
   * the handlers never run; they exist because {@code schedule} accepts only registered names.
   */
  Scheduler scheduler(Set<String> handlers) {
    if (scheduler == null) {
      Kairos.Builder b = Kairos.builder().store(store).instanceId("kairos-cli");
      for (String h : handlers) {
        b.handler(
            h,
            ctx -> {
              throw new IllegalStateException("the CLI's scheduler never runs jobs");
            });
      }
      scheduler = b.build();
    }
    return scheduler;
  }

  @Override
  public void close() {
    if (scheduler != null) {
      scheduler.close(); // closes the store too
    } else {
      store.close();
    }
  }
}
