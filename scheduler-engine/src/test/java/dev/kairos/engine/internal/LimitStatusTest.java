package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.ConcurrencyLimit;
import dev.kairos.Job;
import dev.kairos.JobSpec;
import dev.kairos.LimitStatus;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Scheduler.limits()}: each limit's permits held and fires waiting on this instance, seen
 * through real workers over a {@link ManualClock} (runs block on latches the test opens) and, for
 * the states a worker passes through too quickly to observe, through the dispatcher stepped from
 * the test thread.
 */
class LimitStatusTest {
  private static final Instant T0 = Harness.T0;

  private final ManualClock clock = new ManualClock(T0);
  private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
  private final Set<String> started = ConcurrentHashMap.newKeySet();
  private KairosScheduler scheduler;

  @AfterEach
  void close() {
    gates.values().forEach(CountDownLatch::countDown);
    if (scheduler != null) {
      scheduler.close();
    }
  }

  /** Records its run, then blocks until the test opens the job's gate. */
  private final Job gated =
      ctx -> {
        started.add(ctx.key());
        gate(ctx.key()).await();
      };

  private CountDownLatch gate(String key) {
    return gates.computeIfAbsent(key, k -> new CountDownLatch(1));
  }

  private void start(Kairos.Builder b) {
    scheduler =
        Engines.build(
            b.store(new InMemoryStore())
                .clock(clock)
                .workers(6)
                .gracePeriod(Duration.ofSeconds(1)));
    scheduler.start();
  }

  private void awaitLimits(LimitStatus... expected) {
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(scheduler.limits()).containsExactly(expected));
  }

  /**
   * With a limit of 2 and four due fires, two run and two wait; as runs end the waiting ones take
   * their permits, and once every run has ended nothing is held or waiting.
   */
  @Test
  void fourDueFires_limitOfTwo_twoRunningTwoWaiting_thenNoneAfterReleases() {
    start(Kairos.builder().handler("h", gated).maxConcurrent("h", 2));
    for (int i = 1; i <= 4; i++) {
      scheduler.schedule(JobSpec.named("j" + i).handler("h").at(T0.plusMillis(100L * i)));
    }
    assertThat(scheduler.limits()).containsExactly(new LimitStatus("h", 2, Set.of("h"), 0, 0));

    clock.advance(Duration.ofSeconds(1)); // all four due
    awaitLimits(new LimitStatus("h", 2, Set.of("h"), 2, 2));
    assertThat(started).containsExactlyInAnyOrder("j1", "j2");

    gate("j1").countDown();
    gate("j2").countDown();
    awaitLimits(new LimitStatus("h", 2, Set.of("h"), 2, 0));
    await().atMost(Duration.ofSeconds(20)).until(() -> started.size() == 4);

    gate("j3").countDown();
    gate("j4").countDown();
    awaitLimits(new LimitStatus("h", 2, Set.of("h"), 0, 0));
  }

  /**
   * One status per limit, a group once with all its handlers, ordered by name; handlers without a
   * limit have none; a scheduler without limits reports an empty list.
   */
  @Test
  void severalLimits_onePerLimit_orderedByName_groupListsItsHandlers() {
    start(
        Kairos.builder()
            .handler("zeta", gated)
            .handler("pull", gated)
            .handler("push", gated)
            .handler("free", gated)
            .maxConcurrent("zeta", 3)
            .maxConcurrent("crm", 1, "push", "pull"));
    scheduler.schedule(JobSpec.named("p").handler("push").at(T0));
    scheduler.schedule(JobSpec.named("q").handler("pull").at(T0.plusMillis(1)));
    scheduler.schedule(JobSpec.named("f").handler("free").at(T0));
    clock.advance(Duration.ofSeconds(1));

    awaitLimits(
        new LimitStatus("crm", 1, Set.of("pull", "push"), 1, 1),
        new LimitStatus("zeta", 3, Set.of("zeta"), 0, 0));
    assertThat(scheduler.limits().get(0).handlers()).containsExactly("pull", "push");
  }

  @Test
  void noLimitConfigured_reportsAnEmptyList() {
    start(Kairos.builder().handler("h", gated));
    assertThat(scheduler.limits()).isEmpty();
  }

  /**
   * Stepped: a permit a backfill run took counts as running; a permit handed on to a waiting fire
   * counts as running from the moment it is handed, before a worker takes that fire.
   */
  @Test
  void dispatcherStepped_backfillAndHandedPermitsCountAsRunning() {
    ManualClock due = new ManualClock(T0.plusMillis(10));
    Dispatcher d = new Dispatcher(due, 10_000, List.of(ConcurrencyLimit.of("h", 2)));
    Instant until = T0.plus(Duration.ofDays(1));
    d.beginLoad(until);
    d.endLoad(List.of(job("j1", T0), job("j2", T0.plusMillis(1))), until, null, until);

    assertThat(d.takeBackfillPermit("h")).isTrue();
    Entry j1 = d.poll();
    assertThat(d.poll()).as("j2 waits: the backfill run and j1 hold both").isNull();
    assertThat(d.limitStatus()).containsExactly(new LimitStatus("h", 2, Set.of("h"), 2, 1));

    d.finish(j1, null); // the permit goes to j2, which is queued again, not yet taken
    assertThat(d.limitStatus()).containsExactly(new LimitStatus("h", 2, Set.of("h"), 2, 0));
    Entry j2 = d.poll();
    assertThat(j2.key).isEqualTo("j2");
    assertThat(d.limitStatus()).containsExactly(new LimitStatus("h", 2, Set.of("h"), 2, 0));

    d.releaseBackfillPermit("h");
    d.finish(j2, null);
    assertThat(d.limitStatus()).containsExactly(new LimitStatus("h", 2, Set.of("h"), 0, 0));
  }

  private static JobRecord job(String key, Instant due) {
    return JobRecord.fresh(JobSpec.named(key).handler("h").at(due), due);
  }
}
