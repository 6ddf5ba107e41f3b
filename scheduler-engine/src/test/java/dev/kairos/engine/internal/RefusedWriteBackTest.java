package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.StoreException;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.RunResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A store that refuses the write-back of some runs again and again (a row it cannot hold: before
 * stop 43, PostgreSQL in a LATIN1 database refused an error text in Japanese) while it takes the
 * others. Each refused run fails the whole batch it shares. Before, the writer thread retried the
 * refused run without end, holding up its batch mates and every batch behind it: with two such jobs
 * both writer threads were held, and no job fired again. Now only the refused jobs wait; the others
 * fire at every slot, and a refused run lands once the store takes it.
 *
 * <p>The scheduler runs its real workers and writer threads on a {@link ManualClock}: each slot is
 * reached by moving the clock, and the test waits (bounded) for the fires that slot must bring.
 */
class RefusedWriteBackTest {
  private static final Duration PERIOD = Duration.ofSeconds(10);
  private static final List<String> GOOD = List.of("g0", "g1", "g2", "g3", "g4", "g5");
  private static final List<String> REFUSED = List.of("bad-a", "bad-b");

  private final ManualClock clock = new ManualClock(Harness.T0);
  private final Set<String> refused = ConcurrentHashMap.newKeySet();
  private final AtomicInteger batchesRefused = new AtomicInteger();
  private final List<JobContext> runs = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> firesByKey = new ConcurrentHashMap<>();
  private KairosScheduler scheduler;
  private final InMemoryStore target = new InMemoryStore();

  /** An in-memory store that batches runs and refuses the write-backs of the keys in refused. */
  private JobStore refusingStore() {
    return (JobStore)
        Proxy.newProxyInstance(
            JobStore.class.getClassLoader(),
            new Class<?>[] {JobStore.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "batchesRuns":
                  return true;
                case "runsFinished":
                  @SuppressWarnings("unchecked")
                  List<RunResult> results = (List<RunResult>) args[0];
                  if (results.stream().anyMatch(r -> refused.contains(r.key()))) {
                    batchesRefused.incrementAndGet();
                    throw new StoreException("refused: a row of the batch cannot be stored");
                  }
                  break;
                case "runFinished":
                  RunResult result = (RunResult) args[0];
                  if (refused.contains(result.key())) {
                    throw new StoreException("refused: job " + result.key());
                  }
                  break;
                default:
                  break;
              }
              try {
                return method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @AfterEach
  void close() {
    if (scheduler != null) {
      scheduler.close();
    }
  }

  private void start() {
    start(Kairos.DEFAULT_GRACE_PERIOD);
  }

  private void start(Duration grace) {
    scheduler =
        Engines.build(
            Kairos.builder()
                .store(refusingStore())
                .clock(clock)
                .gracePeriod(grace)
                .workers(4)
                .handler(
                    "h",
                    ctx -> {
                      runs.add(ctx);
                      firesByKey
                          .computeIfAbsent(ctx.key(), k -> new AtomicInteger())
                          .incrementAndGet();
                    }));
    scheduler.open();
    for (String key : REFUSED) { // scheduled first: their runs tend to head the first batch
      schedule(key);
    }
    for (String key : GOOD) {
      schedule(key);
    }
    scheduler.start();
  }

  private void schedule(String key) {
    scheduler.schedule(JobSpec.named(key).handler("h").fixedRate(PERIOD).startAt(Harness.T0));
  }

  private int fires(String key) {
    AtomicInteger n = firesByKey.get(key);
    return n == null ? 0 : n.get();
  }

  private long storedRuns(String key) {
    return scheduler.job(key).map(JobInfo::runCount).orElse(-1L);
  }

  /** Moves the clock to slot n and waits until every good job has fired n + 1 times. */
  private void reachSlot(int n) {
    clock.set(Harness.T0.plus(PERIOD.multipliedBy(n)));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              for (String key : GOOD) {
                assertThat(fires(key)).as("fires of %s by slot %d", key, n).isEqualTo(n + 1);
                assertThat(storedRuns(key)).as("runs of %s written", key).isEqualTo(n + 1L);
              }
            });
  }

  @Test
  void refusedWriteBacks_holdUpOnlyTheirOwnJobs_andLandOnceTheStoreTakesThem() {
    refused.addAll(REFUSED);
    start();
    for (int slot = 0; slot <= 4; slot++) {
      reachSlot(slot);
    }
    assertThat(batchesRefused.get()).as("refused runs shared batches with others").isPositive();
    assertThat(scheduler.stats().writeBacksWaiting()).isEqualTo(REFUSED.size());
    assertThat(scheduler.stats().storeAvailable()).isTrue();
    for (String key : REFUSED) {
      // Its run is not written: the job does not fire again (it would run from a state the store
      // lacks), and nothing was lost or doubled.
      assertThat(fires(key)).as("fires of %s", key).isEqualTo(1);
      assertThat(storedRuns(key)).as("runs of %s written", key).isZero();
    }

    // The store takes them now: each lands on its next retry (within 1 s), and its job, overdue
    // since slot 1, fires at once, once for the four slots missed (the default misfire policy).
    refused.clear();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              for (String key : REFUSED) {
                assertThat(fires(key)).as("fires of %s after its write-back", key).isEqualTo(2);
                assertThat(storedRuns(key)).as("runs of %s written", key).isEqualTo(2L);
              }
            });
    assertThat(scheduler.stats().writeBacksWaiting()).isZero();
    clock.set(Harness.T0.plus(PERIOD.multipliedBy(5)));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              for (String key : REFUSED) {
                assertThat(fires(key)).as("fires of %s at slot 5", key).isEqualTo(3);
              }
              for (String key : GOOD) {
                assertThat(fires(key)).as("fires of %s", key).isEqualTo(6);
              }
            });
  }

  /** At close, a write-back still refused is given up (its fire runs again at the next start). */
  @Test
  void aWriteBackStillRefusedAtClose_isGivenUpWithinTheGracePeriod() {
    refused.add("bad-a");
    start(Duration.ofSeconds(2));
    reachSlot(0);
    assertThat(fires("bad-a")).isEqualTo(1);
    long t0 = System.nanoTime();
    scheduler.close();
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertThat(took).isLessThan(Duration.ofSeconds(15)); // the grace period, with room
    assertThat(target.find("bad-a").orElseThrow().runCount()).isZero(); // run again at next start
    assertThat(scheduler.runningKeys()).isEmpty();
    scheduler = null;
  }
}
