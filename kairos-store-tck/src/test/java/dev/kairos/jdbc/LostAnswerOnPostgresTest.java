package dev.kairos.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Scheduler;
import dev.kairos.StoreException;
import dev.kairos.engine.Kairos;
import dev.kairos.tck.PostgresTestDatabase;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL, through a proxy that lets a statement reach the server and then cuts the
 * connection instead of passing on the answer: the change is committed, the caller gets a {@code
 * StoreException}, and the scheduler reads the job back and acts as the database says. Before, a
 * job created that way never fired until a restart, and a job paused that way stayed queued.
 */
class LostAnswerOnPostgresTest {
  @Test
  void schedule_insertCommittedAnswerLost_throws_andTheJobFires() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      try (AnswerDroppingProxy proxy = proxyTo(PostgresTestDatabase.SERVER)) {
        CountDownLatch ran = new CountDownLatch(1);
        try (Scheduler s = scheduler(db, proxy, ran)) {
          proxy.dropAnswerTo("ON CONFLICT (job_key) DO NOTHING"); // the new job's insert

          JobSpec spec = JobSpec.named("a").handler("h").at(Instant.now().plusSeconds(1));
          assertThatThrownBy(() -> s.schedule(spec)).isInstanceOf(StoreException.class);

          assertThat(proxy.dropped).hasValue(1);
          assertThat(ran.await(20, TimeUnit.SECONDS)).as("the job fired").isTrue();
        }
      }
    }
  }

  @Test
  void pause_commitAnswerLost_throws_andTheJobLeavesTheQueue() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
      db.assumeReachable();
      try (AnswerDroppingProxy proxy = proxyTo(PostgresTestDatabase.SERVER)) {
        CountDownLatch ran = new CountDownLatch(1);
        try (Scheduler s = scheduler(db, proxy, ran)) {
          s.schedule(
              JobSpec.named("a")
                  .handler("h")
                  .fixedRate(Duration.ofHours(1))
                  .startAt(Instant.now().plusSeconds(60))); // in the window, not firing here
          assertThat(s.stats().queuedJobs()).isEqualTo(1);
          proxy.dropAnswerTo("COMMIT"); // the pause's transaction

          assertThatThrownBy(() -> s.pause("a")).isInstanceOf(StoreException.class);

          assertThat(proxy.dropped).hasValue(1);
          assertThat(s.job("a").orElseThrow().state()).isEqualTo(JobState.PAUSED);
          assertThat(s.stats().queuedJobs()).as("queued after the pause").isZero();
        }
      }
    }
  }

  private static Scheduler scheduler(
      PostgresTestDatabase db, AnswerDroppingProxy proxy, CountDownLatch ran) {
    String url = throughProxy(db, proxy);
    JdbcStore store =
        JdbcStore.builder()
            .url(url)
            .user(PostgresTestDatabase.USER)
            .password(PostgresTestDatabase.PASSWORD)
            .poolSize(4)
            .build();
    Scheduler s =
        Kairos.builder().store(store).workers(2).handler("h", ctx -> ran.countDown()).build();
    s.start();
    return s;
  }

  /**
   * The URL of {@code db}'s schema through {@code proxy}, every statement sent with its text
   * ({@code prepareThreshold=0}: a COMMIT too), for the proxy to match.
   */
  static String throughProxy(PostgresTestDatabase db, AnswerDroppingProxy proxy) {
    return db.url().replace(hostAndPort(PostgresTestDatabase.SERVER), "127.0.0.1:" + proxy.port())
        + "&prepareThreshold=0";
  }

  /** A proxy in front of the server of {@code jdbcUrl}. */
  static AnswerDroppingProxy proxyTo(String jdbcUrl) throws Exception {
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    return new AnswerDroppingProxy(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort());
  }

  private static String hostAndPort(String jdbcUrl) {
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    return uri.getRawAuthority();
  }
}
