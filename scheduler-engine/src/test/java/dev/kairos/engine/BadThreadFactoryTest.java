package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.Scheduler;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A user's thread factory that fails, returns null or returns a thread already started makes {@code
 * start()} fail with a message naming the worker, before any thread starts. Before, start() threw a
 * bare NullPointerException after it had started the non-daemon keep-alive thread and some workers:
 * an application whose start failed could not exit without calling close().
 */
class BadThreadFactoryTest {

  @ParameterizedTest
  @ValueSource(strings = {"null", "throws", "started", "same twice"})
  void badFactory_startFailsNamingTheWorker_noThreadStarted_closeStillWorks(String kind)
      throws Exception {
    String id = "bad-factory-" + kind.replace(' ', '-');
    List<Thread> made = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    Function<Runnable, Thread> good =
        r -> {
          Thread t = new Thread(r, id + "-made-" + calls.get());
          made.add(t);
          return t;
        };
    ThreadFactory factory =
        r -> {
          if (calls.incrementAndGet() < 2) {
            return good.apply(r);
          }
          return switch (kind) {
            case "null" -> null;
            case "throws" -> throw new IllegalStateException("no more threads");
            case "started" -> {
              Thread t = good.apply(() -> {});
              t.start();
              yield t;
            }
            default -> made.get(0);
          };
        };
    Scheduler s =
        Kairos.builder()
            .store(new InMemoryStore())
            .instanceId(id)
            .workers(3)
            .threadFactory(factory)
            .handler("h", ctx -> {})
            .build();

    assertThatThrownBy(s::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("threadFactory")
        .hasMessageContaining("worker 2 of 3");

    assertThat(made.get(0).getState()).isEqualTo(Thread.State.NEW);
    assertThat(liveThreadsOf(id)).isEmpty(); // no keep-alive, no worker, no backfill thread
    s.close();
    assertThat(liveThreadsOf(id)).isEmpty();
  }

  private static List<String> liveThreadsOf(String id) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.contains(id) && !n.contains("-made-"))
        .toList();
  }
}
