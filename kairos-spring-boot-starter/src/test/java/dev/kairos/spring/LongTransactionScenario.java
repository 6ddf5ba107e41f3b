package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An application transaction that changes one job and then stays open (a long service method around
 * a {@code pause}, {@code resume}, {@code triggerNow}, new definition or {@code unschedule}) holds
 * that job's row lock until it ends. The other jobs keep firing meanwhile: nothing the scheduler
 * writes for them (start marks written ahead, batched write-backs) may wait for that lock. Before,
 * one such transaction stopped every fire until it ended (0 fires of each other job in 2 s). And a
 * fire of the changed job that came due meanwhile follows what was committed: after the pause, it
 * does not run. Last, one transaction holds more busy jobs than there are workers: the others keep
 * firing too.
 */
final class LongTransactionScenario {
  private LongTransactionScenario() {}

  /**
   * What {@link #firesWhileOpen} saw: each other job's fires while the transaction was open, and
   * when it began to commit.
   */
  private record Open(long[] during, Instant committing) {}

  /** A handler that records when each job's runs began. */
  static final class Recorder implements Job {
    private final Map<String, Queue<Instant>> starts = new ConcurrentHashMap<>();

    @Override
    public void run(JobContext ctx) {
      starts.computeIfAbsent(ctx.key(), k -> new ConcurrentLinkedQueue<>()).add(Instant.now());
    }

    long runs(String key) {
      Queue<Instant> q = starts.get(key);
      return q == null ? 0 : q.size();
    }

    List<Instant> starts(String key) {
      Queue<Instant> q = starts.get(key);
      return q == null ? List.of() : List.copyOf(q);
    }
  }

  /**
   * Runs the scenario with jobs of the handler "export", which must be {@code recorder}, and
   * transactions on {@code ds}, the scheduler's store's data source.
   */
  static void run(Scheduler scheduler, DataSource ds, Recorder recorder) {
    TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
    Duration period = Duration.ofMillis(100);
    List<String> others = List.of("other-1", "other-2", "other-3");
    scheduler.schedule(JobSpec.named("held").handler("export").fixedRate(period));
    for (String key : others) {
      scheduler.schedule(JobSpec.named(key).handler("export").fixedRate(period));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> recorder.runs("held") >= 3);

    List<Consumer<Scheduler>> changes =
        List.of(
            s -> s.pause("held"),
            s -> s.resume("held"),
            s -> s.triggerNow("held"),
            s ->
                s.schedule(JobSpec.named("held").handler("export").fixedRate(period.plusMillis(1))),
            s -> s.unschedule("held"));
    Instant[] committing = new Instant[changes.size()];
    Instant[] committed = new Instant[changes.size()];
    for (int c = 0; c < changes.size(); c++) {
      Open open = firesWhileOpen(tx, scheduler, changes.get(c), recorder, others);
      committed[c] = Instant.now();
      committing[c] = open.committing();
      assertKeptFiring(open.during(), "the transaction of change " + c);
    }
    // A fire of "held" that came due while the pause's transaction was open waited for it, then
    // saw the pause: no run of it began between that commit and the resume's. The resume's commit
    // is bounded by when its transaction began to commit, not by when the commit call returned: the
    // transaction's end releases the fire held meanwhile, which may start before the call returns
    // (seen once in about 50 runs on PostgreSQL before the bound was the commit's start).
    assertThat(recorder.starts("held"))
        .noneMatch(t -> t.isAfter(committed[0]) && t.isBefore(committing[1]));
    moreHeldJobsThanWorkers(scheduler, tx, recorder, others, period);
  }

  /**
   * Each other job kept firing while the transaction was open: about 20 fires each in 2 s, at least
   * 5 each (a slow machine runs late, and fireOnce() folds late fires). Before stop 52 a store
   * thread waiting for the row lock stopped them all (0 each); before stop 53 held fires took every
   * worker (0-3 in all); before stop 54 a batch of write-backs or start marks formed just before
   * the change and written just after it waited for the row lock (seen as 0 for one job, and in a
   * CI run 0 for all three on MariaDB's unschedule step): the change now waits for such a batch
   * before it writes.
   */
  private static void assertKeptFiring(long[] during, String when) {
    System.out.printf("fires of the other jobs while %s: %s%n", when, Arrays.toString(during));
    assertThat(Arrays.stream(during).min().orElse(0))
        .as("fewest fires of one other job while %s: %s", when, Arrays.toString(during))
        .isGreaterThanOrEqualTo(5);
  }

  /**
   * Makes {@code change} in a transaction that then stays open 2 s; returns how many times each of
   * {@code others} fired meanwhile, and when the transaction began to commit.
   */
  private static Open firesWhileOpen(
      TransactionTemplate tx,
      Scheduler scheduler,
      Consumer<Scheduler> change,
      Recorder recorder,
      List<String> others) {
    long[] during = new long[others.size()];
    Instant[] committing = new Instant[1];
    tx.executeWithoutResult(
        status -> {
          change.accept(scheduler);
          long[] before = others.stream().mapToLong(recorder::runs).toArray();
          long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
          while (System.nanoTime() < end) { // the application's transaction stays open
            LockSupport.parkNanos(10_000_000L);
          }
          for (int i = 0; i < during.length; i++) {
            during[i] = recorder.runs(others.get(i)) - before[i];
          }
          committing[0] = Instant.now(); // the transaction commits right after this
        });
    return new Open(during, committing[0]);
  }

  /**
   * One transaction redefines more busy jobs than there are workers, in one bulk call, and stays
   * open: the other jobs keep firing. Before, each held job's due fire kept a worker waiting for
   * the transaction's end, and with every worker waiting nothing else fired.
   */
  private static void moreHeldJobsThanWorkers(
      Scheduler scheduler,
      TransactionTemplate tx,
      Recorder recorder,
      List<String> others,
      Duration period) {
    int workers = scheduler.stats().workers();
    List<String> busy =
        java.util.stream.IntStream.range(0, workers + 2).mapToObj(i -> "busy-" + i).toList();
    for (String key : busy) {
      scheduler.schedule(JobSpec.named(key).handler("export").fixedRate(period));
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> busy.stream().allMatch(k -> recorder.runs(k) >= 2));
    long[] during =
        firesWhileOpen(
                tx,
                scheduler,
                s ->
                    s.scheduleAll(
                        busy.stream()
                            .map(
                                k ->
                                    JobSpec.named(k)
                                        .handler("export")
                                        .fixedRate(period.plusMillis(1)))
                            .toList()),
                recorder,
                others)
            .during();
    assertKeptFiring(during, busy.size() + " busy jobs held, " + workers + " workers");
    long[] after = busy.stream().mapToLong(recorder::runs).toArray();
    await() // and the held jobs fire again once it has committed
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                java.util.stream.IntStream.range(0, busy.size())
                    .allMatch(i -> recorder.runs(busy.get(i)) > after[i]));
  }
}
