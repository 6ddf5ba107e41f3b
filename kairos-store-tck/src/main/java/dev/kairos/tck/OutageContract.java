package dev.kairos.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store outage: the database ends every connection of the store's pool (as a server restart or a
 * network fault would) while fixed-rate jobs run, twice. Firing resumes once the pool reconnects,
 * every job keeps firing, and no worker thread dies. Each test has tables of its own (a fresh
 * prefix) in the subclass's database, over a pool the subclass makes and can end the connections
 * of.
 */
public abstract class OutageContract {
  private static final List<String> KEYS = List.of("tick-1", "tick-2", "tick-3");
  private static final Duration RATE = Duration.ofMillis(200);

  /**
   * The longest wait, after an outage, for every job to run five more times: about 1 s on the test
   * machine even at a load average of 13 (the test prints it), so 8 s leaves room for a loaded one.
   */
  private static final Duration RESUME_BOUND = Duration.ofSeconds(8);

  /** The longest wait for the first runs after start (JDBC pool and schema on a loaded machine). */
  private static final Duration START_BOUND = Duration.ofSeconds(30);

  /**
   * A pool over the test's database (skips the test if it is unreachable) whose connections {@link
   * #killConnections(String)} ends; closed by the test if it is {@link AutoCloseable}. It should
   * time out a connection request within a few seconds, so that a store call during the outage
   * fails rather than hangs.
   *
   * @param name a name of this test's own, for the pool and (where the database has them) its
   *     connections' application name
   * @param size the pool's maximum connections
   * @return the pool
   */
  protected abstract DataSource dataSource(String name, int size);

  /**
   * Ends every connection of the pool {@link #dataSource(String, int)} made with this name, from
   * the database's side (PostgreSQL: {@code pg_terminate_backend}; MariaDB: {@code KILL
   * CONNECTION}). It may end other connections of the test's own database or user too, but no other
   * test's.
   *
   * @param name the name the pool was made with
   * @return how many connections were ended
   */
  protected abstract int killConnections(String name);

  /**
   * Connections ended twice while three jobs fire every 200 ms on three workers: after each outage
   * every job runs at least five more times, the workers the scheduler started are all alive and no
   * new one replaced them, and every job is still stored and scheduled. In cluster mode the store's
   * feed (PostgreSQL's LISTEN connection, MariaDB's polling) is ended with the pool.
   *
   * @param clustered whether the store runs in cluster mode
   */
  @ParameterizedTest(name = "clustered={0}")
  @ValueSource(booleans = {false, true})
  void connectionsKilled_whileJobsRun_firingResumesNoJobDroppedNoWorkerDies(boolean clustered)
      throws Exception {
    String name = "kairos-outage-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    List<Thread> threads = new CopyOnWriteArrayList<>();
    ThreadFactory factory =
        r -> {
          Thread t = new Thread(r, "outage-worker-" + threads.size());
          threads.add(t);
          return t;
        };
    DataSource ds = dataSource(name, 4);
    try (Scheduler scheduler =
        Kairos.builder()
            .store(
                JdbcStore.builder()
                    .dataSource(ds)
                    .tablePrefix(JdbcStoreContract.nextPrefix())
                    .clustered(clustered)
                    .build())
            .workers(3)
            .threadFactory(factory)
            .gracePeriod(Duration.ofSeconds(2))
            .handler(
                "tick",
                ctx -> runs.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet())
            .build()) {
      scheduler.start();
      for (String key : KEYS) {
        scheduler.schedule(JobSpec.named(key).handler("tick").fixedRate(RATE));
      }
      awaitEachRanAtLeast(runs, Map.of(), 3, START_BOUND);
      int started = threads.size();

      for (int outage = 0; outage < 2; outage++) {
        Map<String, Integer> before = snapshot(runs);
        long killedAt = System.nanoTime();
        assertThat(killConnections(name)).as("connections ended in outage %d", outage).isPositive();
        awaitEachRanAtLeast(runs, before, 5, RESUME_BOUND);
        System.out.printf(
            "outage %d (clustered=%s): every job ran 5 more times within %d ms%n",
            outage, clustered, (System.nanoTime() - killedAt) / 1_000_000);
      }

      assertThat(started).as("threads of the factory").isGreaterThanOrEqualTo(3);
      assertThat(threads).as("threads of the factory").hasSize(started).allMatch(Thread::isAlive);
      if (!clustered) {
        assertThat(started).as("worker threads").isEqualTo(3);
      }
      List<JobInfo> jobs = scheduler.jobs();
      assertThat(jobs).extracting(JobInfo::key).containsExactlyElementsOf(KEYS);
      assertThat(jobs)
          .extracting(JobInfo::state)
          .allMatch(st -> st == JobState.SCHEDULED || st == JobState.RUNNING);
    } finally {
      if (ds instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  private static Map<String, Integer> snapshot(Map<String, AtomicInteger> runs) {
    Map<String, Integer> copy = new ConcurrentHashMap<>();
    runs.forEach((k, v) -> copy.put(k, v.get()));
    return copy;
  }

  private static void awaitEachRanAtLeast(
      Map<String, AtomicInteger> runs, Map<String, Integer> before, int more, Duration bound) {
    await()
        .atMost(bound)
        .until(
            () ->
                KEYS.stream()
                    .allMatch(
                        k ->
                            runs.getOrDefault(k, new AtomicInteger()).get()
                                >= before.getOrDefault(k, 0) + more));
  }
}
