package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's plain hooks for meters: {@link SchedulerListener#runWrittenBack}, {@link
 * SchedulerListener#claimLost}, and the cluster fields of {@code stats()}.
 */
class ObservabilityHooksTest {
  private final List<KairosScheduler> schedulers = new ArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final List<Duration> writeBacks = new CopyOnWriteArrayList<>();

  private final SchedulerListener recorder =
      new SchedulerListener() {
        @Override
        public void runSucceeded(JobContext context, Duration took) {
          events.add("succeeded " + context.key());
        }

        @Override
        public void runWrittenBack(JobContext context, Duration took) {
          events.add("written back " + context.key());
          writeBacks.add(took);
        }

        @Override
        public void claimLost(String key, Instant scheduledFireTime) {
          events.add("claim lost " + key + " " + scheduledFireTime);
        }
      };

  private static final Object CALL_THROUGH = new Object();

  /** Decides a store call before it reaches the store, or returns CALL_THROUGH. */
  private interface Interceptor {
    Object apply(Method method, Object[] args) throws Exception;
  }

  /** A cluster store over {@code memory}; {@code first} may answer a call itself. */
  private static ClusterStore around(InMemoryStore memory, Interceptor first) {
    return (ClusterStore)
        Proxy.newProxyInstance(
            ClusterStore.class.getClassLoader(),
            new Class<?>[] {ClusterStore.class},
            (proxy, method, args) -> {
              Object answer = first.apply(method, args);
              if (answer != CALL_THROUGH) {
                return answer;
              }
              try {
                return method.invoke(memory, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @AfterEach
  void closeAll() {
    schedulers.forEach(KairosScheduler::close);
  }

  private KairosScheduler scheduler(JobStore store, String id, Duration lease) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(store)
                .instanceId(id)
                .clusterLease(lease)
                .clusterPoll(Duration.ofMillis(50))
                .listener(recorder)
                .handler("h", ctx -> {}));
    schedulers.add(s);
    return s;
  }

  /** The write-back hook comes after the run's outcome, with the store call's real duration. */
  @Test
  void runWrittenBack_followsTheOutcome_andMeasuresTheStoreCall() {
    JobStore slow =
        around(
            new InMemoryStore(),
            (method, args) -> {
              if (method.getName().equals("runFinished")) {
                Thread.sleep(50); // the store's latency under test, not a wait for an outcome
              }
              return CALL_THROUGH;
            });
    KairosScheduler s = scheduler(slow, "solo", Duration.ofSeconds(30));
    s.open();
    s.schedule(JobSpec.named("once").handler("h").at(Instant.now()));

    assertThat(s.runDue()).isEqualTo(1);

    assertThat(events).containsExactly("succeeded once", "written back once");
    assertThat(writeBacks.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
  }

  /**
   * Two instances queue the same fire; the second one's claim finds the first one's: one claim
   * lost, reported with the fire, and the fire runs once.
   */
  @Test
  void secondInstanceClaimingARunFire_reportsOneLostClaim() {
    InMemoryStore store = InMemoryStore.shared(TimeSource.system());
    KairosScheduler a = scheduler(store, "a", Duration.ofSeconds(30));
    KairosScheduler b = scheduler(store, "b", Duration.ofSeconds(30));
    Instant due = Instant.now();
    a.open();
    a.schedule(JobSpec.named("job").handler("h").at(due));
    b.open(); // loads the job into b's heap too

    a.runDue();
    b.runDue();

    assertThat(events)
        .containsExactly("succeeded job", "written back job", "claim lost job " + due);
  }

  @Test
  void stats_outsideClusterMode_noInstancesCounted_andAlive() {
    KairosScheduler s = scheduler(new InMemoryStore(), "solo", Duration.ofSeconds(30));
    s.start();
    assertThat(s.stats().liveInstances()).isZero();
    assertThat(s.stats().instanceAlive()).isTrue();
  }

  /** Live instances follow heartbeats: a second instance is counted, and uncounted when closed. */
  @Test
  void stats_inClusterMode_countLiveInstances() {
    InMemoryStore store = InMemoryStore.shared(TimeSource.system()); // lists live instances
    KairosScheduler a = scheduler(store, "a", Duration.ofSeconds(1));
    a.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> a.stats().liveInstances() == 1);
    KairosScheduler b = scheduler(store, "b", Duration.ofSeconds(1));
    b.start();

    await().atMost(Duration.ofSeconds(10)).until(() -> a.stats().liveInstances() == 2);
    assertThat(a.stats().instanceAlive()).isTrue();
    b.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> a.stats().liveInstances() == 1);
  }

  /** An instance whose heartbeats stop for longer than the lease no longer counts itself alive. */
  @Test
  void stats_heartbeatsStopped_instanceNotAliveAfterTheLease() {
    InMemoryStore store = InMemoryStore.shared(TimeSource.system());
    KairosScheduler a = scheduler(store, "a", Duration.ofSeconds(1));
    a.start();
    assertThat(a.stats().instanceAlive()).isTrue();

    a.stopClusterSyncForTest();

    await().atMost(Duration.ofSeconds(10)).until(() -> !a.stats().instanceAlive());
  }
}
