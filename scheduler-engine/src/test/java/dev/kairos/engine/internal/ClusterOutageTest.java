package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.StoreException;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.TimeSource;
import dev.kairos.spi.ClusterStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A store outage longer than the lease, seen by every instance: each claim lapses while nobody can
 * renew, the live owner's too. When the store answers again, the owner renews before anyone else
 * recovers its claim, so the running fire is not run a second time elsewhere.
 */
class ClusterOutageTest {
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Set<String> ALWAYS_UP = Set.of("awaitChange", "close", "toString");

  private final InMemoryStore shared = InMemoryStore.shared(TimeSource.system());
  private final List<KairosScheduler> instances = new ArrayList<>();
  private final List<JobContext> runs = new CopyOnWriteArrayList<>();

  /** One instance's view of the shared store, which can be cut off from it. */
  private static final class Link {
    final AtomicBoolean down = new AtomicBoolean();
    final AtomicInteger feedReadsSinceUp = new AtomicInteger();
    final List<Integer> renewalsSinceUp = new CopyOnWriteArrayList<>();

    ClusterStore over(ClusterStore store) {
      return (ClusterStore)
          Proxy.newProxyInstance(
              ClusterStore.class.getClassLoader(),
              new Class<?>[] {ClusterStore.class},
              (proxy, method, args) -> {
                String name = method.getName();
                if (down.get() && !ALWAYS_UP.contains(name)) {
                  throw new StoreException("store unreachable (test outage): " + name);
                }
                Object out;
                try {
                  out = method.invoke(store, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
                if (name.equals("changesSince")) {
                  feedReadsSinceUp.incrementAndGet();
                } else if (name.equals("renewClaims")) {
                  renewalsSinceUp.add((Integer) out);
                }
                return out;
              });
    }

    void cut() {
      down.set(true);
    }

    void restore() {
      feedReadsSinceUp.set(0);
      renewalsSinceUp.clear();
      down.set(false);
    }
  }

  private KairosScheduler instance(String id, Link link, CountDownLatch hold) {
    KairosScheduler s =
        Engines.build(
            Kairos.builder()
                .store(link.over(shared))
                .instanceId(id)
                .workers(2)
                .clusterLease(LEASE)
                .clusterPoll(Duration.ofMillis(50))
                .handler(
                    "h",
                    ctx -> {
                      runs.add(ctx);
                      if (runs.size() == 1) {
                        hold.await(); // the first run lasts through the outage
                      }
                    }));
    instances.add(s);
    return s;
  }

  @AfterEach
  void closeAll() {
    instances.forEach(KairosScheduler::close);
  }

  @Test
  void outageLongerThanTheLease_ownerRenewsFirst_fireNotRecoveredElsewhere() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    Link link1 = new Link();
    Link link2 = new Link();
    KairosScheduler s1 = instance("s1", link1, hold);
    KairosScheduler s2 = instance("s2", link2, hold);
    s1.start();
    s2.start();
    s1.schedule(JobSpec.named("job").handler("h").fixedRate(Duration.ofHours(1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 1);
    // a: the instance running the fire; b: the other one
    boolean firstOwns = s1.runningKeys().contains("job");
    KairosScheduler a = firstOwns ? s1 : s2;
    KairosScheduler b = firstOwns ? s2 : s1;
    Link linkA = firstOwns ? link1 : link2;
    Link linkB = firstOwns ? link2 : link1;
    assertThat(a.runningKeys()).containsExactly("job");

    linkA.cut();
    linkB.cut();
    // The outage lasts until the running fire's lease has lapsed in the store.
    await()
        .atMost(LEASE.multipliedBy(3))
        .until(() -> shared.expiredClaims(10).stream().anyMatch(r -> r.key().equals("job")));

    // B reaches the store first and goes through several rounds with it; the owner comes back
    // after that, as the slower of two instances retrying after an outage would.
    linkB.restore();
    await().atMost(Duration.ofSeconds(10)).until(() -> linkB.feedReadsSinceUp.get() >= 4);
    linkA.restore();
    await().atMost(Duration.ofSeconds(10)).until(() -> !linkA.renewalsSinceUp.isEmpty());

    assertThat(linkA.renewalsSinceUp.get(0))
        .as("claims the owner renewed after the outage")
        .isOne();
    hold.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> a.runningKeys().isEmpty());
    assertThat(shared.find("job").orElseThrow().nextFireTime())
        .isEqualTo(runs.get(0).scheduledFireTime().plus(Duration.ofHours(1)));
    assertThat(shared.expiredClaims(10)).isEmpty();
    assertThat(runs).as("runs of the one due fire").hasSize(1);
    assertThat(b.runningKeys()).isEmpty();
  }
}
