package dev.kairos.engine.internal;

import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.StoreException;
import dev.kairos.engine.CallerTransactions;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.Upsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** scheduleAll and unscheduleAll: validation of the whole batch first, upserts, chunks, heap. */
class ScheduleAllTest {
  private final CountingStore store = new CountingStore();
  private final Harness h = new Harness(store, ctx -> {});

  private static JobSpec every10s(String key) {
    return JobSpec.named(key).handler("h").fixedRate(ofSeconds(10));
  }

  private static List<JobSpec> oneShots(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> JobSpec.named("once-" + i).handler("h").at(Harness.T0.plusMillis(n - i)))
        .toList();
  }

  @Test
  void scheduleAll_firesEachJobAsScheduleWould() {
    List<JobInfo> stored =
        h.scheduler.scheduleAll(
            List.of(
                every10s("a"),
                every10s("b").initialDelay(ofSeconds(5)),
                JobSpec.named("c").handler("h").after(ofSeconds(7))));

    assertThat(stored).extracting(i -> i.spec().key()).containsExactly("a", "b", "c");
    assertThat(stored)
        .extracting(JobInfo::nextFireTime)
        .containsExactly(Harness.T0, Harness.T0.plusSeconds(5), Harness.T0.plusSeconds(7));
    h.runUntil(Harness.T0.plusSeconds(15));
    assertThat(h.runs)
        .extracting(ctx -> ctx.key() + "@" + Harness.ms(ctx.scheduledFireTime()))
        .containsExactly("a@0", "b@5000", "c@7000", "a@10000", "b@15000");
  }

  /** Per job, exactly schedule's upsert: same definition keeps state, a changed one recomputes. */
  @Test
  void scheduleAll_again_keepsUnchangedJobs_replacesChangedOnes_addsNewOnes() {
    h.scheduler.scheduleAll(List.of(every10s("same"), every10s("changed")));
    h.runUntil(Harness.T0.plusSeconds(15));
    JobInfo before = h.scheduler.job("same").orElseThrow();

    List<JobInfo> after =
        h.scheduler.scheduleAll(
            List.of(
                every10s("same"),
                every10s("changed").fixedRate(ofSeconds(60)).initialDelay(ofSeconds(60)),
                every10s("new")));

    assertThat(after.get(0)).isEqualTo(before);
    assertThat(after.get(1).nextFireTime()).isEqualTo(Harness.T0.plusSeconds(75));
    assertThat(after.get(1).runCount()).isEqualTo(2);
    assertThat(after.get(2).nextFireTime()).isEqualTo(Harness.T0.plusSeconds(15));
    h.runs.clear();
    h.runUntil(Harness.T0.plusSeconds(80));
    assertThat(h.runs)
        .extracting(ctx -> ctx.key() + "@" + Harness.ms(ctx.scheduledFireTime()))
        .containsExactly(
            "new@15000",
            "same@20000",
            "new@25000",
            "same@30000",
            "new@35000",
            "same@40000",
            "new@45000",
            "same@50000",
            "new@55000",
            "same@60000",
            "new@65000",
            "same@70000",
            "changed@75000",
            "new@75000",
            "same@80000");
  }

  @Test
  void scheduleAll_badSpecs_oneExceptionNamesEveryBadKey_andNothingIsWritten() {
    List<JobSpec> batch =
        Arrays.asList(
            every10s("ok"),
            JobSpec.named("unknown-handler").handler("nope").fixedRate(ofSeconds(1)),
            JobSpec.named("negative").handler("h").fixedRate(Duration.ofSeconds(-1)),
            null,
            JobSpec.named("no-schedule").handler("h"),
            every10s("twice"),
            every10s("twice"),
            JobSpec.named("bad-cron").handler("h").cron("not a cron"));

    assertThatThrownBy(() -> h.scheduler.scheduleAll(batch))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("6 problem(s) in a batch of 8 job spec(s); nothing scheduled")
        .hasMessageContaining("#1 job 'unknown-handler': handler 'nope' is not registered")
        .hasMessageContaining("#2 job 'negative': fixed-rate period must be positive: PT-1S")
        .hasMessageContaining("#3 spec must not be null")
        .hasMessageContaining("#4 job 'no-schedule': no schedule")
        .hasMessageContaining("#7 job 'bad-cron'")
        .hasMessageContaining("job 'twice': key given 2 times, at [5, 6]")
        .hasMessageNotContaining("'ok'");
    assertThat(store.upserts).isZero();
    assertThat(h.scheduler.jobs()).isEmpty();
    assertThat(h.scheduler.queued()).isZero();
  }

  @Test
  void scheduleAll_manyBadSpecs_detailsTheFirstFifty_andStillNamesEveryKey() {
    List<JobSpec> batch =
        IntStream.range(0, 60)
            .mapToObj(i -> JobSpec.named("bad-" + i).handler("nope").fixedRate(ofSeconds(1)))
            .toList();

    assertThatThrownBy(() -> h.scheduler.scheduleAll(batch))
        .hasMessageContaining("#49 job 'bad-49': handler 'nope'")
        .hasMessageContaining("and 10 more, for 'bad-50', 'bad-51'")
        .hasMessageEndingWith("'bad-59'");
  }

  /** A large batch goes to the store in chunks and fires in due order. */
  @Test
  void scheduleAll_largeBatch_isWrittenInChunks_andEveryJobFiresOnce() {
    List<JobInfo> stored = h.scheduler.scheduleAll(oneShots(2_500));

    assertThat(stored).hasSize(2_500);
    assertThat(store.upsertAllSizes).containsExactly(1000, 1000, 500);
    assertThat(store.upserts).isZero();
    h.runUntil(Harness.T0.plusSeconds(3));
    assertThat(h.runs).hasSize(2_500);
    assertThat(h.runs.get(0).key()).isEqualTo("once-2499"); // due first
    assertThat(h.runs.get(2_499).key()).isEqualTo("once-0");
  }

  /** A store failing on the second chunk: the first is stored and queued, the error says so. */
  @Test
  void scheduleAll_storeFailsMidway_firstChunkStoredAndQueued_errorSaysHowMany() {
    store.failOnUpsertAll = 2;

    assertThatThrownBy(() -> h.scheduler.scheduleAll(oneShots(2_500)))
        .isInstanceOf(StoreException.class)
        .hasMessageStartingWith("scheduled 1000 of 2500 job(s) before the store failed");

    assertThat(h.scheduler.jobs()).hasSize(1000);
    assertThat(h.scheduler.queued()).isEqualTo(1000);
    h.runUntil(Harness.T0.plusSeconds(3));
    assertThat(h.runs).hasSize(1000);
  }

  /**
   * A store that takes two calls at once gets each pair of chunks side by side (the calls of 1,000
   * wait for each other, so they cannot have run one after the other); every job fires once.
   */
  @Test
  void scheduleAll_twoCallsAtOnce_chunksRunSideBySide_everyJobFiresOnce() {
    store.parallel = 2;
    store.sideBySide = new CountDownLatch(2);

    List<JobInfo> stored = h.scheduler.scheduleAll(oneShots(2_500));

    assertThat(stored).extracting(i -> i.spec().key()).containsExactlyElementsOf(keys(2_500));
    assertThat(store.upsertAllSizes).containsExactlyInAnyOrder(1000, 1000, 500);
    assertThat(store.metTheOther).containsExactly(true, true);
    assertThat(store.upsertAllThreads).contains(Thread.currentThread()).hasSize(3);
    assertThat(Set.copyOf(store.upsertAllThreads)).hasSize(2); // the 2nd on a thread of its own
    h.runUntil(Harness.T0.plusSeconds(3));
    assertThat(h.runs).hasSize(2_500);
    assertThat(h.runs.stream().map(ctx -> ctx.key()).distinct()).hasSize(2_500);
  }

  /**
   * One of two side-by-side calls fails: the other's chunk is stored and queued, the next pair is
   * not written, the error says how many were stored, and the heap holds exactly the store's jobs.
   */
  @Test
  void scheduleAll_oneOfTwoCallsFails_theOtherIsStoredAndQueued_errorSaysHowMany() {
    store.parallel = 2;
    store.failOnChunkWith = "once-1500"; // the second chunk, on the other thread

    assertThatThrownBy(() -> h.scheduler.scheduleAll(oneShots(2_500)))
        .isInstanceOf(StoreException.class)
        .hasMessageStartingWith("scheduled 1000 of 2500 job(s) before the store failed");

    assertThat(store.upsertAllSizes).containsExactlyInAnyOrder(1000, 1000);
    assertThat(h.scheduler.jobs())
        .extracting(i -> i.spec().key())
        .containsExactlyInAnyOrderElementsOf(keys(1000));
    assertThat(h.scheduler.queued()).isEqualTo(1000);
    h.runUntil(Harness.T0.plusSeconds(3));
    assertThat(h.runs).hasSize(1000);
  }

  /** A caller's transaction may be open: every call stays on the caller's thread, to join it. */
  @Test
  void scheduleAll_callerTransactionMayBeOpen_callsStayOnTheCallingThread() {
    CountingStore joined = new CountingStore();
    joined.parallel = 2;
    Harness t =
        new Harness(
            joined,
            Kairos.builder()
                .callerTransactions(
                    new CallerTransactions() {
                      @Override
                      public boolean afterCompletion(Runnable reread) {
                        return false;
                      }

                      @Override
                      public boolean mayJoin() {
                        return true;
                      }
                    }),
            ctx -> {});

    assertThat(t.scheduler.scheduleAll(oneShots(2_500))).hasSize(2_500);

    assertThat(joined.upsertAllSizes).containsExactly(1000, 1000, 500);
    assertThat(joined.upsertAllThreads).containsOnly(Thread.currentThread());
    t.scheduler.close();
  }

  /** The keys {@link #oneShots} makes, in order. */
  private static List<String> keys(int n) {
    return IntStream.range(0, n).mapToObj(i -> "once-" + i).toList();
  }

  @Test
  void unscheduleAll_deletesKnownKeys_dequeuesThem_andCountsEachOnce() {
    h.scheduler.scheduleAll(List.of(every10s("a"), every10s("b"), every10s("c")));

    int deleted = h.scheduler.unscheduleAll(List.of("a", "c", "a", "unknown"));

    assertThat(deleted).isEqualTo(2);
    assertThat(store.deleteAllSizes).containsExactly(3);
    assertThat(h.scheduler.jobs()).extracting(i -> i.spec().key()).containsExactly("b");
    h.runUntil(Harness.T0.plusSeconds(10));
    assertThat(h.runs).extracting(ctx -> ctx.key()).containsExactly("b", "b");
  }

  @Test
  void unscheduleAll_nullKey_namesItsPosition_andDeletesNothing() {
    h.scheduler.scheduleAll(List.of(every10s("a")));

    assertThatThrownBy(() -> h.scheduler.unscheduleAll(Arrays.asList("a", null, "b", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job keys: 2 null key(s) at [1, 3]; nothing unscheduled");
    assertThat(h.scheduler.job("a")).isPresent();
  }

  @Test
  void scheduleAll_emptyBatch_writesNothing() {
    assertThat(h.scheduler.scheduleAll(List.of())).isEmpty();
    assertThat(h.scheduler.unscheduleAll(List.of())).isZero();
    assertThat(store.upsertAllSizes).isEmpty();
  }

  /** In cluster mode, another instance learns of a bulk change as of a single one: the feed. */
  @Test
  void scheduleAll_inClusterMode_otherInstanceQueuesAndDropsTheJobs() {
    InMemoryStore shared = InMemoryStore.shared(h.clock);
    Harness a = new Harness(shared, Kairos.builder().instanceId("a"), ctx -> {});
    Harness b = new Harness(shared, Kairos.builder().instanceId("b"), ctx -> {});

    a.scheduler.scheduleAll(List.of(every10s("x"), every10s("y").initialDelay(ofSeconds(5))));
    b.scheduler.syncCluster();
    assertThat(b.scheduler.queued()).isEqualTo(2);
    b.runUntil(Harness.T0);
    assertThat(b.runs).extracting(ctx -> ctx.key()).containsExactly("x");

    a.scheduler.unscheduleAll(List.of("x", "y"));
    b.scheduler.syncCluster();
    assertThat(b.scheduler.queued()).isZero();
    a.scheduler.close();
    b.scheduler.close();
  }

  /** An in-memory store that counts bulk calls and can fail one of them. */
  private static final class CountingStore extends ForwardingStore {
    final List<Integer> upsertAllSizes = Collections.synchronizedList(new ArrayList<>());
    final List<Thread> upsertAllThreads = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> deleteAllSizes = new ArrayList<>();
    int upserts;
    int failOnUpsertAll;
    String failOnChunkWith;
    int parallel = 1;

    /** Counted down by each call of 1,000 records, which then waits for the count to reach 0. */
    CountDownLatch sideBySide;

    final List<Boolean> metTheOther = Collections.synchronizedList(new ArrayList<>());

    @Override
    public int parallelUpserts() {
      return parallel;
    }

    @Override
    public List<Upsert> upsertAll(List<JobRecord> fresh) {
      upsertAllSizes.add(fresh.size());
      upsertAllThreads.add(Thread.currentThread());
      if (sideBySide != null && fresh.size() == 1000) {
        sideBySide.countDown();
        try {
          metTheOther.add(sideBySide.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      if (upsertAllSizes.size() == failOnUpsertAll
          || fresh.stream().anyMatch(r -> r.key().equals(failOnChunkWith))) {
        throw new StoreException("database down");
      }
      return delegate.upsertAll(fresh);
    }

    @Override
    public List<String> deleteAll(Collection<String> keys) {
      deleteAllSizes.add(keys.size());
      return delegate.deleteAll(keys);
    }

    @Override
    public Upsert upsert(JobRecord fresh) {
      upserts++;
      return delegate.upsert(fresh);
    }
  }
}
