package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.engine.ManualClock;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.WindowCursor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Window loads read pages of at most {@link KairosScheduler#LOAD_PAGE} rows, come before due fires
 * in {@code take()}, and move the cursor past rows filtered out of a page.
 */
class WindowPagingTest {
  static final Instant T0 = Harness.T0;
  static final Instant UNTIL = T0.plus(Duration.ofMinutes(5));

  private final ManualClock clock = new ManualClock(T0.plusSeconds(1));

  @Test
  void firstLoadReadsOnePage_thenEveryDueJobFiresOnceInOrder() {
    int jobs = 2 * KairosScheduler.LOAD_PAGE + 500;
    Harness h = new Harness(new InMemoryStore(), Kairos.builder().windowSize(10_000), ctx -> {});
    for (int i = 0; i < jobs; i++) {
      h.scheduler.schedule(
          JobSpec.named(String.format("j%05d", i)).handler("h").at(T0.plusSeconds(10)));
    }
    Harness h2 = new Harness(h.store, Kairos.builder().windowSize(10_000), ctx -> {});
    assertThat(h2.scheduler.queued()).isEqualTo(KairosScheduler.LOAD_PAGE);

    h2.runUntil(T0.plusSeconds(10));

    assertThat(h2.runs).extracting(c -> c.key()).hasSize(jobs).isSorted().doesNotHaveDuplicates();
    assertThat(h2.runs).allMatch(c -> c.actualStart().equals(T0.plusSeconds(10)));
  }

  /**
   * A full page whose rows all belong to a handler not registered here: the next page is read at
   * once, and the jobs behind it fire on time (the cursor once fell back to the horizon, hiding
   * them until the next periodic load, half the look-ahead later).
   */
  @Test
  void pageOfJobsWithoutHandlerHere_doesNotHideTheJobsAfterIt() {
    Harness writer =
        new Harness(
            new InMemoryStore(),
            Kairos.builder().windowSize(10).handler("other", ctx -> {}),
            c -> {});
    for (int i = 0; i < 25; i++) {
      writer.scheduler.schedule(
          JobSpec.named(String.format("a%02d", i)).handler("other").at(T0.plusSeconds(10)));
    }
    for (String key : List.of("b1", "b2")) {
      writer.scheduler.schedule(JobSpec.named(key).handler("h").at(T0.plusSeconds(10)));
    }

    Harness h = new Harness(writer.store, Kairos.builder().windowSize(10), ctx -> {});
    h.runUntil(T0.plusSeconds(10));

    assertThat(h.runs).extracting(c -> c.key()).containsExactly("b1", "b2");
    assertThat(h.runs).allMatch(c -> c.actualStart().equals(T0.plusSeconds(10)));
  }

  /**
   * With a truncated window running low, {@code take()} hands the load to one worker before any due
   * fire, and meanwhile gives the due fires to the others; the load's end moves the cursor to the
   * last row read.
   */
  @Test
  void truncatedWindow_takeHandsOutTheLoadFirst_othersGetDueFiresMeanwhile() throws Exception {
    Dispatcher d = new Dispatcher(clock, 10);
    WindowCursor last = truncatedLoad(d, 3, 2); // j2 read but filtered out

    assertThat(d.take()).isSameAs(Dispatcher.LOAD);
    assertThat(d.take().key).isEqualTo("j0"); // while the load runs
    assertThat(d.beginLoad(UNTIL)).isEqualTo(last);
    d.endLoad(List.of(), UNTIL, null, UNTIL.plusSeconds(60)); // nothing more: not truncated
    assertThat(d.take().key).isEqualTo("j1");
    assertThat(d.poll()).isNull();
  }

  /**
   * A failed load of a truncated window is retried at the time given, not at once: the other due
   * fires go on meanwhile, and the retry starts from the covered cursor.
   */
  @Test
  void failedLoadOfTruncatedWindow_waitsForItsRetryTime_firesGoOn() throws Exception {
    Dispatcher d = new Dispatcher(clock, 10);
    WindowCursor last = truncatedLoad(d, 2, 2);

    assertThat(d.take()).isSameAs(Dispatcher.LOAD);
    d.abortLoad(clock.now().plusSeconds(1));
    assertThat(d.take().key).isEqualTo("j0");
    assertThat(d.take().key).isEqualTo("j1");
    assertThat(d.poll()).isNull();
    assertThat(d.nextWakeUp()).isEqualTo(clock.now().plusSeconds(1));

    clock.advance(Duration.ofSeconds(1));
    assertThat(d.poll()).isSameAs(Dispatcher.LOAD);
    assertThat(d.beginLoad(UNTIL)).isEqualTo(last);
  }

  /**
   * Runs that finish while a load runs are queued against the load's reach, so half a window of
   * later fires may be queued beyond the loaded part of a truncated window. The next page is read
   * once nothing queued is due within the loaded part; before, it waited until fewer than half a
   * window were queued, that is until those later fires had run, and the rows due now behind the
   * page's end waited with it (a minute here; a fixed rate's period in general).
   */
  @Test
  void truncatedWindow_laterFiresQueuedBeyondIt_doNotHoldUpTheNextPage() throws Exception {
    Dispatcher d = new Dispatcher(clock, 4); // pages of 4; the next when fewer than 2 are queued
    truncatedLoad(d, 4, 4); // j0..j3, due now
    List<Entry> running = List.of(d.take(), d.take(), d.take());
    assertThat(d.take()).isSameAs(Dispatcher.LOAD);
    for (Entry e : running) { // finish during the load, each next due in a minute
      d.finish(
          e,
          JobRecord.fresh(
              JobSpec.named(e.key).handler("h").at(T0.plusSeconds(60)), T0.plusSeconds(60)));
    }
    List<JobRecord> page = new ArrayList<>();
    for (int i = 4; i < 8; i++) {
      page.add(JobRecord.fresh(JobSpec.named("j" + i).handler("h").at(T0), T0));
    }
    d.beginLoad(UNTIL);
    d.endLoad(page, UNTIL, page.get(3).cursor(), UNTIL); // still truncated: j8... are due too
    for (String key : List.of("j3", "j4", "j5", "j6", "j7")) {
      assertThat(d.take().key).isEqualTo(key);
    }
    assertThat(d.queued()).isEqualTo(3); // j0..j2, in a minute

    assertThat(d.poll()).isSameAs(Dispatcher.LOAD); // the rows after j7, due now
  }

  /**
   * Cluster mode queues the fires of other instances' share a little late: such an entry, due
   * within the loaded part, is not "beyond" the window. A backlog of jobs due at one instant, all
   * of another instance's share here, reads one page while half a window is queued, not page after
   * page (the whole backlog).
   */
  @Test
  void truncatedWindow_entriesDelayedByTheClusterShare_countAsWithinIt() throws Exception {
    Dispatcher d = new Dispatcher(clock, 4);
    List<String> live = List.of("i0", "i1", "i2", "i3", "i4", "i5");
    java.util.Set<String> preferred = new java.util.HashSet<>();
    for (int i = 0; i < 4; i++) {
      preferred.add(ClusterShare.of("i0", live).preferred("j" + i));
    }
    String self = live.stream().filter(id -> !preferred.contains(id)).findFirst().orElseThrow();
    ClusterShare share = ClusterShare.of(self, live);
    for (int i = 0; i < 4; i++) {
      assertThat(share.delayNanos("j" + i)).as("j%d is another instance's first", i).isPositive();
    }
    d.share(share);
    truncatedLoad(d, 4, 4); // j0..j3, due now, queued 250 ms late
    assertThat(d.take().key).as("four queued, all due within the page: no load").isEqualTo("j0");
  }

  /**
   * Ends a first load that read {@code read} due jobs j0, j1, ... as a full page (truncated), of
   * which the first {@code kept} are queued; returns the cursor of the last row read.
   */
  private static WindowCursor truncatedLoad(Dispatcher d, int read, int kept) {
    List<JobRecord> page = new ArrayList<>();
    for (int i = 0; i < read; i++) {
      page.add(JobRecord.fresh(JobSpec.named("j" + i).handler("h").at(T0), T0));
    }
    d.beginLoad(UNTIL);
    WindowCursor last = page.get(read - 1).cursor();
    d.endLoad(page.subList(0, kept), UNTIL, last, UNTIL);
    return last;
  }
}
