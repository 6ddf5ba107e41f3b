package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.StoreSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@code Kairos.Builder.store} takes a {@link StoreSource}: the scheduler works on its {@code
 * jobStore()}, opens and closes that, and recognises a cluster store behind a source that is not a
 * store itself (as {@code JdbcStore} is not).
 */
class StoreSourceTest {
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-05T00:00:00Z"));

  /** A source that is not itself a store, as JdbcStore is not. */
  private record Source(JobStore store) implements StoreSource {
    @Override
    public JobStore jobStore() {
      return store;
    }
  }

  @Test
  void aJobStore_isItsOwnSource() {
    InMemoryStore store = new InMemoryStore();
    assertThat(store.jobStore()).isSameAs(store);
  }

  @Test
  void aSource_schedulerOpensWorksOnAndClosesItsJobStore() {
    InMemoryStore inner = new InMemoryStore();
    List<String> lifeCycle = new CopyOnWriteArrayList<>();
    JobStore recording =
        (JobStore)
            Proxy.newProxyInstance(
                JobStore.class.getClassLoader(),
                new Class<?>[] {JobStore.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("open") || method.getName().equals("close")) {
                    lifeCycle.add(method.getName());
                  }
                  try {
                    return method.invoke(inner, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    Scheduler scheduler =
        Kairos.builder().store(new Source(recording)).clock(clock).handler("h", ctx -> {}).build();
    assertThat(lifeCycle).isEmpty();
    scheduler.start();
    scheduler.schedule(JobSpec.named("a").handler("h").fixedRate(Duration.ofMinutes(1)));

    assertThat(inner.find("a")).isPresent();
    assertThat(lifeCycle).containsExactly("open");
    scheduler.close();
    assertThat(lifeCycle).containsExactly("open", "close");
  }

  /**
   * A store given directly is used as given: a decorator that delegates every call to its inner
   * store, {@code jobStore()} included, is not bypassed for the inner one.
   */
  @Test
  void aDecoratorDelegatingJobStore_isUsedItself() {
    InMemoryStore inner = new InMemoryStore();
    List<String> seen = new CopyOnWriteArrayList<>();
    JobStore decorator =
        (JobStore)
            Proxy.newProxyInstance(
                JobStore.class.getClassLoader(),
                new Class<?>[] {JobStore.class},
                (proxy, method, args) -> {
                  seen.add(method.getName());
                  try {
                    return method.invoke(inner, args); // jobStore() too: answers the inner store
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    try (Scheduler scheduler =
        Kairos.builder().store(decorator).clock(clock).handler("h", ctx -> {}).build()) {
      scheduler.start();
      scheduler.schedule(JobSpec.named("a").handler("h").fixedRate(Duration.ofMinutes(1)));
    }

    assertThat(seen).contains("open", "upsert", "close").doesNotContain("jobStore");
  }

  /** Cluster mode is detected on the source's store: the instance registers there. */
  @Test
  void aSourceOfAClusterStore_runsInClusterMode() {
    InMemoryStore shared = InMemoryStore.shared(clock);
    try (Scheduler scheduler =
        Kairos.builder()
            .store(new Source(shared))
            .clock(clock)
            .instanceId("node-1")
            .handler("h", ctx -> {})
            .build()) {
      scheduler.start();

      assertThat(shared.instances()).containsOnlyKeys("node-1");
    }
  }

  @Test
  void aSourceWithoutAStore_isRefusedNamingIt() {
    assertThatThrownBy(() -> Kairos.builder().store(new Source(null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Source[store=null]")
        .hasMessageContaining("null jobStore()");
  }
}
