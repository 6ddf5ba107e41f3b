package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.spi.ClusterStore;
import dev.kairos.tck.ClusterStoreContract;
import dev.kairos.tck.JdbcStoreContract;
import dev.kairos.tck.PostgresTestDatabase;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The cluster contract on PostgreSQL, in a schema of this class's own, plus LISTEN/NOTIFY. */
class PostgresClusterStoreTest extends ClusterStoreContract {
  private static PostgresTestDatabase db;

  @BeforeAll
  static void createSchema() {
    db = PostgresTestDatabase.create();
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
    }
  }

  @Override
  protected Supplier<ClusterStore> sharedTables() {
    db.assumeReachable();
    String prefix = JdbcStoreContract.nextPrefix();
    return () ->
        db.builder().tablePrefix(prefix).clustered(true).changeSettle(SETTLE).build().jobStore();
  }

  /** A write through one instance wakes another's wait at once (well within its 10 s maximum). */
  @Test
  void awaitChange_writeThroughAnotherInstance_wakesTheWaiterAtOnce() throws Exception {
    b.awaitChange(Duration.ofMillis(10)); // the first call opens the listener
    CompletableFuture<Long> woken =
        CompletableFuture.supplyAsync(
            () -> {
              long start = System.nanoTime();
              try {
                while (!b.awaitChange(Duration.ofSeconds(10))) {
                  // a timeout without notification: wait again
                }
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              return System.nanoTime() - start;
            });
    Thread.sleep(200); // let the waiter block first
    a.upsert(fresh("x", T0));

    long waited = woken.get(10, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(waited)).isLessThan(Duration.ofSeconds(2));
  }
}
