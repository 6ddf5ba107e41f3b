package dev.kairos.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.ClusterStore.Claimed;
import dev.kairos.spi.FireKind;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.ScheduleState;
import dev.kairos.spi.WindowCursor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The semantics of {@link ClusterStore}, stated once and run against the shared in-memory store, H2
 * and PostgreSQL: claims, leases judged by the store's clock, recovery, and the change feed. Each
 * test gets instances {@code a}, {@code b} and {@code c}: three store objects over the same tables,
 * as three scheduler processes would have.
 */
public abstract class ClusterStoreContract {
  /** The due time of the jobs the tests create. */
  public static final Instant T0 = Instant.parse("2026-01-05T02:00:00Z");

  /**
   * A lease that expires during a test: long enough that the few store calls a test makes right
   * after its claim, which expect the lease still live, end within it on a slow, shared machine.
   */
  public static final Duration SHORT = Duration.ofSeconds(1);

  /** A lease that outlives a test. */
  public static final Duration LONG = Duration.ofMinutes(5);

  /** Instance a's store, open. */
  protected ClusterStore a;

  /** Instance b's store, open. */
  protected ClusterStore b;

  /** Instance c's store, open. */
  protected ClusterStore c;

  private final List<ClusterStore> opened = new ArrayList<>();

  /**
   * Makes store objects over one new, empty set of tables, clustered; for database stores, with
   * changes settling after {@link #SETTLE}.
   *
   * @return a supplier of stores over the same new tables
   */
  protected abstract java.util.function.Supplier<ClusterStore> sharedTables();

  /** How long a database store waits before its feed's cursor passes a change (see ChangeFeed). */
  public static final Duration SETTLE = Duration.ofMillis(200);

  @BeforeEach
  void openInstances() {
    var tables = sharedTables();
    a = open(tables.get());
    b = open(tables.get());
    c = open(tables.get());
  }

  private ClusterStore open(ClusterStore s) {
    opened.add(s);
    s.open();
    return s;
  }

  @AfterEach
  void closeInstances() {
    opened.forEach(ClusterStore::close);
  }

  /**
   * A new fixed-rate job record due at {@code due}.
   *
   * @param key the job key
   * @param due the due time
   * @return the record
   */
  public static JobRecord fresh(String key, Instant due) {
    return JobStoreContract.fresh(key, due);
  }

  /**
   * The write-back of a successful run of the claimed record, by {@code instance}.
   *
   * @param claimed the record as the claim returned it
   * @param instance the instance that ran it
   * @return the write-back
   */
  public static RunResult finished(JobRecord claimed, String instance) {
    Instant fire = claimed.dueTime();
    Instant next = fire.plusSeconds(60);
    return new RunResult(
        new RunRecord(
            claimed.key(),
            fire,
            fire.plusMillis(5),
            fire.plusMillis(25),
            RunOutcome.SUCCESS,
            null,
            1,
            instance),
        claimed.version(),
        new ScheduleState(JobState.SCHEDULED, next, next, FireKind.TIMETABLE, 1));
  }

  private static void awaitStoreClockPast(ClusterStore s, Instant t) {
    await().atMost(Duration.ofSeconds(10)).until(() -> s.storeNow().isAfter(t));
  }

  // ---- claims ----------------------------------------------------------------------------------

  @Test
  void clustered_isTrue() {
    assertThat(a.clustered()).isTrue();
  }

  /** A claim marks the job RUNNING with a new version; a second claim of the same fire loses. */
  @Test
  void claim_sameFireTwice_firstWinsSecondLoses() {
    JobRecord r = a.upsert(fresh("j", T0)).record();

    Claimed won = a.claim(r, "a", LONG).orElseThrow();

    assertThat(won.recovery()).isFalse();
    assertThat(won.record().state()).isEqualTo(JobState.RUNNING);
    assertThat(won.record().version()).isEqualTo(r.version() + 1);
    assertThat(won.record().dueTime()).isEqualTo(T0);
    assertThat(b.claim(r, "b", LONG)).isEmpty();
    assertThat(b.find("j")).contains(won.record());
  }

  /**
   * A fire is claimed only once it is due by the store's clock: an instance whose clock runs ahead
   * cannot start it early. The claim's start is the store's time of the claim.
   */
  @Test
  void claim_fireNotYetDueByTheStoresClock_loses() {
    Instant due = a.storeNow().plusSeconds(2);
    JobRecord r = a.upsert(fresh("ahead", due)).record();

    assertThat(a.claim(r, "a", LONG)).isEmpty();
    assertThat(a.find("ahead")).contains(r);

    awaitStoreClockPast(a, due);
    Claimed won = a.claim(r, "a", LONG).orElseThrow();
    assertThat(won.record().lastStart()).isAfterOrEqualTo(due);
  }

  @Test
  void claim_staleVersionOrOtherDueTime_loses() {
    JobRecord r = a.upsert(fresh("j", T0)).record();
    JobRecord moved =
        a.replace(
                r.withSchedule(JobState.SCHEDULED, T0, T0.plusSeconds(5), FireKind.TRIGGER, 1),
                r.version())
            .orElseThrow();

    assertThat(b.claim(r, "b", LONG)).isEmpty();
    assertThat(
            b.claim(
                moved.withSchedule(JobState.SCHEDULED, T0, T0, FireKind.TIMETABLE, 1), "b", LONG))
        .isEmpty();
    assertThat(b.claim(moved, "b", LONG)).isPresent();
  }

  @Test
  void claim_unknownJob_loses() {
    assertThat(a.claim(fresh("nobody", T0), "a", LONG)).isEmpty();
  }

  /** Many instances racing for the same fires: each fire is won exactly once. */
  @Test
  void claim_racingInstances_eachFireWonOnce() throws Exception {
    List<JobRecord> jobs = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      jobs.add(a.upsert(fresh("race-" + i, T0)).record());
    }
    int total =
        race((s, id, t) -> jobs.stream().filter(r -> s.claim(r, id, LONG).isPresent()).count());
    assertThat(total).isEqualTo(jobs.size());
  }

  /** What one racing instance does; returns how many claims it won. */
  private interface Racer {
    long run(ClusterStore store, String instance, int index) throws Exception;
  }

  /**
   * Runs {@code racer} for instances a, b and c ("i0", "i1", "i2"), each on its own thread, all
   * released at once; returns their wins in all.
   */
  private int race(Racer racer) throws Exception {
    ClusterStore[] instances = {a, b, c};
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Long>> wins = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        ClusterStore s = instances[t];
        int index = t;
        wins.add(
            pool.submit(
                () -> {
                  go.await();
                  return racer.run(s, "i" + index, index);
                }));
      }
      go.countDown();
      int total = 0;
      for (Future<Long> f : wins) {
        total += f.get(60, TimeUnit.SECONDS).intValue();
      }
      return total;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A batch of claims answers each in the order given, as single claims would: a due fire wins, a
   * stale version, a fire not yet due by the store's clock and a fire another instance holds lose,
   * and the losers are left as they were.
   */
  @Test
  void claimAll_answersEachClaimInOrder_lostOnesLeftAsTheyWere() {
    JobRecord due = a.upsert(fresh("b-due", T0)).record();
    JobRecord held = a.upsert(fresh("a-held", T0)).record();
    Claimed other = b.claim(held, "b", LONG).orElseThrow();
    JobRecord stale = a.upsert(fresh("c-stale", T0)).record();
    JobRecord moved =
        a.replace(
                stale.withSchedule(JobState.SCHEDULED, T0, T0, FireKind.TRIGGER, 1),
                stale.version())
            .orElseThrow();
    JobRecord ahead = a.upsert(fresh("0-ahead", a.storeNow().plusSeconds(60))).record();
    JobRecord due2 = a.upsert(fresh("z-due", T0)).record();

    List<Optional<Claimed>> answers = a.claimAll(List.of(due, held, stale, ahead, due2), "a", LONG);

    assertThat(answers).hasSize(5);
    assertThat(answers.get(0)).isPresent();
    assertThat(answers.get(0).get().record().key()).isEqualTo("b-due");
    assertThat(answers.get(0).get().record().state()).isEqualTo(JobState.RUNNING);
    assertThat(answers.get(0).get().record().version()).isEqualTo(due.version() + 1);
    assertThat(answers.get(0).get().recovery()).isFalse();
    assertThat(answers.get(1)).isEmpty();
    assertThat(answers.get(2)).isEmpty();
    assertThat(answers.get(3)).isEmpty();
    assertThat(answers.get(4).map(x -> x.record().key())).contains("z-due");
    assertThat(a.find("a-held")).contains(other.record());
    assertThat(a.find("c-stale")).contains(moved);
    assertThat(a.find("0-ahead")).contains(ahead);
    assertThat(b.claimAll(List.of(due, due2), "b", LONG)).containsOnly(Optional.empty());
    assertThat(a.claimAll(List.of(), "a", LONG)).isEmpty();
  }

  /** Instances claiming overlapping batches in opposite orders: each fire is won exactly once. */
  @Test
  void claimAll_racingBatches_eachFireWonOnce() throws Exception {
    List<JobRecord> jobs = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      jobs.add(a.upsert(fresh("batch-" + i, T0)).record());
    }
    ClusterStore[] instances = {a, b, c};
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<List<String>>> wins = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        ClusterStore s = instances[t];
        String id = "i" + t;
        List<JobRecord> mine = new ArrayList<>(jobs);
        java.util.Collections.rotate(mine, 20 * t);
        if (t == 1) {
          java.util.Collections.reverse(mine);
        }
        wins.add(
            pool.submit(
                () -> {
                  go.await();
                  List<String> won = new ArrayList<>();
                  for (int from = 0; from < mine.size(); from += 15) {
                    for (Optional<Claimed> x :
                        s.claimAll(mine.subList(from, from + 15), id, LONG)) {
                      x.ifPresent(w -> won.add(w.record().key()));
                    }
                  }
                  return won;
                }));
      }
      go.countDown();
      List<String> all = new ArrayList<>();
      for (Future<List<String>> f : wins) {
        all.addAll(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(all).hasSize(jobs.size()).doesNotHaveDuplicates();
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- leases ----------------------------------------------------------------------------------

  /**
   * A live lease blocks every other claim; once it expires by the store's clock, one instance
   * recovers the fire (flagged as a recovery) and the others lose to it.
   */
  @Test
  void claim_expiredLease_recoveredOnceAsRecovery() {
    JobRecord r = a.upsert(fresh("j", T0)).record();
    Claimed first = a.claim(r, "a", SHORT).orElseThrow();
    assertThat(b.claim(first.record(), "b", LONG)).isEmpty();
    assertThat(b.expiredClaims(10)).isEmpty();

    await().atMost(Duration.ofSeconds(10)).until(() -> !b.expiredClaims(10).isEmpty());
    JobRecord expired = b.expiredClaims(10).get(0);
    assertThat(expired).isEqualTo(first.record());

    Claimed recovered = b.claim(expired, "b", LONG).orElseThrow();
    assertThat(recovered.recovery()).isTrue();
    assertThat(recovered.record().version()).isEqualTo(first.record().version() + 1);
    assertThat(c.claim(expired, "c", LONG)).isEmpty();
    assertThat(c.expiredClaims(10)).isEmpty();
  }

  // ---- claims under a concurrency limit ---------------------------------------------------------

  private static JobRecord freshOf(String key, String handler, Instant due) {
    return JobRecord.fresh(
        dev.kairos.JobSpec.named(key).handler(handler).fixedRate(Duration.ofMinutes(1)), due);
  }

  /**
   * A group limit of 2 over handlers h and k: two claims win, on any instances; a third of either
   * handler is refused as full and leaves the job as it was; a handler outside the group is free; a
   * write-back frees the permit.
   */
  @Test
  void claimWithin_limitFull_refusedAcrossInstances_untilARunEnds() {
    dev.kairos.ConcurrencyLimit group = dev.kairos.ConcurrencyLimit.group("hk", 2, "h", "k");
    JobRecord j1 = a.upsert(freshOf("j1", "h", T0)).record();
    JobRecord j2 = a.upsert(freshOf("j2", "k", T0)).record();
    JobRecord j3 = a.upsert(freshOf("j3", "h", T0)).record();
    JobRecord k4 = a.upsert(freshOf("k4", "k", T0)).record();
    JobRecord x = a.upsert(freshOf("x", "other", T0)).record();

    Claimed first = a.claimWithin(j1, "a", LONG, group).claimed().orElseThrow();
    assertThat(b.claimWithin(j2, "b", LONG, group).claimed()).isPresent();
    assertThat(c.claimWithin(j3, "c", LONG, group)).isEqualTo(ClusterStore.LimitedClaim.full());
    assertThat(c.claimWithin(k4, "c", LONG, group).limitFull()).isTrue();
    assertThat(c.find("j3")).contains(j3);
    assertThat(
            c.claimWithin(x, "c", LONG, dev.kairos.ConcurrencyLimit.of("other", 1))
                .claimed()
                .orElseThrow()
                .record()
                .state())
        .isEqualTo(JobState.RUNNING);

    a.runFinished(finished(first.record(), "a"));
    ClusterStore.LimitedClaim third = c.claimWithin(j3, "c", LONG, group);
    assertThat(third.limitFull()).isFalse();
    assertThat(third.claimed()).isPresent();
  }

  /**
   * Backfill runs count against a concurrency limit in the whole cluster, both ways: a live lease
   * refuses a slot's claim, a RUNNING slot refuses a regular claim and another slot's claim, and
   * finishing the slot frees the permit. A refused claim changes nothing; a slot already claimed is
   * lost, not full, once the limit is free.
   */
  @Test
  void claimBackfillWithin_countsLeasesAndRunningSlots_acrossInstances() {
    dev.kairos.ConcurrencyLimit one = dev.kairos.ConcurrencyLimit.of("h", 1);
    JobRecord j1 = a.upsert(fresh("j1", T0)).record();
    a.upsert(fresh("j2", T0));
    JobRecord j3 = a.upsert(fresh("j3", T0)).record();
    Instant slot1 = T0.minusSeconds(7200);
    Instant slot2 = T0.minusSeconds(3600);
    assertThat(a.addBackfill("j2", List.of(slot1, slot2))).isEqualTo(2);

    Claimed held = a.claimWithin(j1, "a", LONG, one).claimed().orElseThrow();
    assertThat(b.claimBackfillWithin("j2", slot1, "b", one))
        .isEqualTo(ClusterStore.BackfillClaim.LIMIT_FULL);
    assertThat(b.backfillSlots("j2"))
        .extracting(dev.kairos.spi.BackfillSlot::state)
        .containsOnly(dev.kairos.spi.BackfillSlot.State.PENDING);

    a.runFinished(finished(held.record(), "a"));
    assertThat(b.claimBackfillWithin("j2", slot1, "b", one))
        .isEqualTo(ClusterStore.BackfillClaim.CLAIMED);
    assertThat(c.claimWithin(j3, "c", LONG, one).limitFull()).isTrue();
    assertThat(c.find("j3")).contains(j3);
    assertThat(c.claimBackfillWithin("j2", slot2, "c", one))
        .isEqualTo(ClusterStore.BackfillClaim.LIMIT_FULL);
    assertThat(c.claimBackfillWithin("j2", slot1, "c", dev.kairos.ConcurrencyLimit.of("h", 5)))
        .isEqualTo(ClusterStore.BackfillClaim.LOST);

    Instant now = a.storeNow();
    assertThat(
            b.finishBackfill(
                new dev.kairos.RunRecord(
                    "j2", slot1, now, now, RunOutcome.SUCCESS, null, 1, "b", false, 0),
                "b"))
        .isTrue();
    assertThat(c.claimBackfillWithin("j2", slot2, "c", one))
        .isEqualTo(ClusterStore.BackfillClaim.CLAIMED);
  }

  /**
   * In cluster mode a concurrent run's start is the fire's claim: refused NOT_DUE while the job is
   * not due by the store's clock, LIMIT_FULL while another job of the limit's handlers holds the
   * only permit, STARTED once it is free; the started run then holds the permit against a regular
   * claim; two instances starting from the same version: one wins.
   */
  @Test
  void startConcurrentRun_clusterMode_claimsByStoreClockAndLimit() {
    dev.kairos.ConcurrencyLimit one = dev.kairos.ConcurrencyLimit.of("h", 1);
    Instant now = a.storeNow();
    JobRecord future = a.upsert(fresh("later", now.plusSeconds(3600))).record();
    assertThat(a.startConcurrentRun(concurrent(future, "a", null)).outcome())
        .isEqualTo(dev.kairos.spi.ConcurrentRun.Outcome.NOT_DUE);

    JobRecord j1 = a.upsert(fresh("j1", T0)).record();
    JobRecord j2 = a.upsert(fresh("j2", T0)).record();
    Claimed held = a.claimWithin(j1, "a", LONG, one).claimed().orElseThrow();
    assertThat(b.startConcurrentRun(concurrent(j2, "b", one)).outcome())
        .isEqualTo(dev.kairos.spi.ConcurrentRun.Outcome.LIMIT_FULL);
    assertThat(b.find("j2")).contains(j2);

    a.runFinished(finished(held.record(), "a"));
    assertThat(b.startConcurrentRun(concurrent(j2, "b", one)).outcome())
        .isEqualTo(dev.kairos.spi.ConcurrentRun.Outcome.STARTED);
    assertThat(c.startConcurrentRun(concurrent(j2, "c", one)).outcome())
        .isEqualTo(dev.kairos.spi.ConcurrentRun.Outcome.CHANGED);
    JobRecord j3 = a.upsert(fresh("j3", T0)).record();
    assertThat(c.claimWithin(j3, "c", LONG, one).limitFull()).isTrue();
  }

  /** The start of a run of {@code r}'s due fire in cluster mode, allow(2), next fire 60 s on. */
  private static dev.kairos.spi.ConcurrentRun concurrent(
      JobRecord r, String instance, dev.kairos.ConcurrencyLimit limit) {
    Instant next = r.dueTime().plusSeconds(60);
    return new dev.kairos.spi.ConcurrentRun(
        r.key(),
        r.version(),
        r.dueTime(),
        r.dueTime(),
        instance,
        2,
        new dev.kairos.spi.ConcurrentRun.Next(JobState.SCHEDULED, next, next, FireKind.TIMETABLE),
        true,
        limit);
  }

  /** A claim whose lease expired (its instance died) no longer holds a permit. */
  @Test
  void claimWithin_expiredLease_freesThePermit() {
    dev.kairos.ConcurrencyLimit one = dev.kairos.ConcurrencyLimit.of("h", 1);
    JobRecord j1 = a.upsert(fresh("j1", T0)).record();
    JobRecord j2 = a.upsert(fresh("j2", T0)).record();
    assertThat(a.claimWithin(j1, "a", SHORT, one).claimed()).isPresent();
    assertThat(b.claimWithin(j2, "b", LONG, one).limitFull()).isTrue();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> b.claimWithin(j2, "b", LONG, one).claimed().isPresent());
  }

  /**
   * The job being claimed is not counted against its own limit: a claim of a fire whose live lease
   * its owner holds loses as a plain lost claim (not full), and the recovery of an expired claim
   * wins under a limit of 1.
   */
  @Test
  void claimWithin_ownRowNotCounted() {
    dev.kairos.ConcurrencyLimit one = dev.kairos.ConcurrencyLimit.of("h", 1);
    JobRecord j1 = a.upsert(fresh("j1", T0)).record();
    Claimed held = a.claimWithin(j1, "a", SHORT, one).claimed().orElseThrow();
    ClusterStore.LimitedClaim again = b.claimWithin(held.record(), "b", LONG, one);
    assertThat(again.limitFull()).isFalse();
    assertThat(again.claimed()).isEmpty();

    await().atMost(Duration.ofSeconds(10)).until(() -> !b.expiredClaims(10).isEmpty());
    Claimed recovered =
        b.claimWithin(b.expiredClaims(10).get(0), "b", LONG, one).claimed().orElseThrow();
    assertThat(recovered.recovery()).isTrue();
  }

  /**
   * Three instances race to claim 20 due fires of one handler under a limit of 2, each from its own
   * thread: exactly 2 claims win in all (the limit's row serializes the count and the claim).
   */
  @Test
  void claimWithin_racingInstances_exactlyThePermitsWon() throws Exception {
    dev.kairos.ConcurrencyLimit two = dev.kairos.ConcurrencyLimit.of("h", 2);
    List<JobRecord> jobs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      jobs.add(a.upsert(fresh("lim-" + i, T0)).record());
    }
    int total =
        race(
            (s, id, t) -> {
              long won = 0;
              for (int i = 0; i < jobs.size(); i++) {
                JobRecord r = jobs.get((i + 7 * t) % 20);
                won += s.claimWithin(r, id, LONG, two).claimed().isPresent() ? 1 : 0;
              }
              return won;
            });
    assertThat(total).isEqualTo(2);
  }

  @Test
  void renewLeases_extendsOnlyTheCallersOwnLeases() {
    JobRecord j1 = a.upsert(fresh("j1", T0)).record();
    JobRecord j2 = a.upsert(fresh("j2", T0)).record();
    Instant claimedAt = a.storeNow();
    a.claim(j1, "a", SHORT).orElseThrow();
    b.claim(j2, "b", SHORT).orElseThrow();

    assertThat(a.renewClaims("a", Map.of("j1", T0, "j2", T0, "nobody", T0), LONG)).isEqualTo(1);

    awaitStoreClockPast(a, claimedAt.plus(SHORT).plusMillis(100));
    assertThat(c.expiredClaims(10)).extracting(JobRecord::key).containsExactly("j2");
  }

  /**
   * An instance restarted with its predecessor's id renews only claims it won itself: the dead
   * predecessor's claim (another fire) keeps its lease and expires, so failover is not delayed.
   */
  @Test
  void renewClaims_skipsAClaimOnAnotherFire_soADeadPredecessorsClaimExpires() {
    JobRecord j = a.upsert(fresh("j", T0)).record();
    Instant claimedAt = a.storeNow();
    a.claim(j, "a", SHORT).orElseThrow(); // the predecessor "a" dies holding it

    // Its successor, also "a", renews what it believes it holds: a claim on a later fire.
    assertThat(b.renewClaims("a", Map.of("j", T0.plusSeconds(60)), LONG)).isZero();

    awaitStoreClockPast(a, claimedAt.plus(SHORT).plusMillis(100));
    assertThat(c.expiredClaims(10)).extracting(JobRecord::key).containsExactly("j");
  }

  /**
   * A claim whose lease lapsed without a write-back is a recovery even when a change made during
   * its run (a pause and a resume through another instance) left the row SCHEDULED: that run may
   * have started. Before, only a RUNNING row counted, and the fire ran again unflagged.
   */
  @Test
  void claim_ofALapsedClaimOnARowChangedDuringItsRun_isARecovery() {
    JobRecord r = a.upsert(fresh("j", T0)).record();
    JobRecord claimedByA = a.claim(r, "a", SHORT).orElseThrow().record();
    JobRecord paused =
        b.replace(
                claimedByA.withSchedule(
                    JobState.PAUSED, claimedByA.nextFireTime(), null, FireKind.TIMETABLE, 1),
                claimedByA.version())
            .orElseThrow();
    JobRecord resumed =
        b.replace(
                paused.withSchedule(
                    JobState.SCHEDULED,
                    paused.nextFireTime(),
                    paused.nextFireTime(),
                    FireKind.TIMETABLE,
                    1),
                paused.version())
            .orElseThrow();
    assertThat(resumed.state()).isEqualTo(JobState.SCHEDULED);
    await().atMost(Duration.ofSeconds(10)).until(() -> !b.expiredClaims(10).isEmpty());

    Claimed again = b.claim(b.expiredClaims(10).get(0), "b", LONG).orElseThrow();

    assertThat(again.recovery()).isTrue();
    assertThat(again.record().dueTime()).isEqualTo(T0);
  }

  /** A claim given up before its run is released: the fire can be claimed again at once. */
  @Test
  void release_endsTheClaimWithoutARun_keepingTheVersion() {
    JobRecord j = a.upsert(fresh("j", T0)).record();
    JobRecord claimed = a.claim(j, "a", LONG).orElseThrow().record();

    assertThat(b.release("j", "b", T0)).isFalse();
    assertThat(a.release("j", "a", T0)).isTrue();

    JobRecord after = c.find("j").orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(after.version()).isEqualTo(claimed.version());
    assertThat(after.runCount()).isZero();
    assertThat(b.claim(after, "b", LONG)).isPresent();
  }

  /** The owner's write-back ends the claim: the next fire can be claimed by anyone at once. */
  @Test
  void runFinished_byOwner_endsTheClaim() {
    JobRecord r = a.upsert(fresh("j", T0)).record();
    JobRecord claimed = a.claim(r, "a", LONG).orElseThrow().record();

    JobRecord after = a.runFinished(finished(claimed, "a")).orElseThrow();

    assertThat(after.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(after.dueTime()).isEqualTo(T0.plusSeconds(60));
    assertThat(after.version()).isEqualTo(claimed.version() + 1);
    Claimed next = b.claim(after, "b", LONG).orElseThrow();
    assertThat(next.recovery()).isFalse();
  }

  /**
   * An instance that lost its lease (and whose fire was recovered elsewhere) writes back late: its
   * statistics count, but the schedule state and the new owner's claim stay.
   */
  @Test
  void runFinished_staleWhileAnotherHoldsTheClaim_keepsRunningAndTheClaim() {
    JobRecord r = a.upsert(fresh("j", T0)).record();
    JobRecord claimedByA = a.claim(r, "a", SHORT).orElseThrow().record();
    await().atMost(Duration.ofSeconds(10)).until(() -> !b.expiredClaims(10).isEmpty());
    JobRecord claimedByB = b.claim(b.expiredClaims(10).get(0), "b", LONG).orElseThrow().record();

    JobRecord afterA = a.runFinished(finished(claimedByA, "a")).orElseThrow();

    assertThat(afterA.state()).isEqualTo(JobState.RUNNING);
    assertThat(afterA.version()).isEqualTo(claimedByB.version());
    assertThat(afterA.runCount()).isEqualTo(1);
    assertThat(c.claim(afterA, "c", LONG)).isEmpty();
    assertThat(c.expiredClaims(10)).isEmpty();

    JobRecord afterB = b.runFinished(finished(claimedByB, "b")).orElseThrow();
    assertThat(afterB.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(afterB.runCount()).isEqualTo(2);
  }

  /**
   * A job changed during a run (here: triggered through another instance) is no longer RUNNING, but
   * still claimed: nobody can claim it until the claim ends, and if its instance dies the expired
   * claim is reported so another instance takes the job over (not as a recovery).
   */
  @Test
  void expiredClaims_jobChangedDuringADeadInstancesRun_reported() {
    JobRecord r = a.upsert(fresh("j", T0)).record();
    JobRecord claimed = a.claim(r, "a", SHORT).orElseThrow().record();
    JobRecord triggered =
        b.replace(
                claimed.withSchedule(
                    JobState.SCHEDULED, T0, T0.plusSeconds(1), FireKind.TRIGGER, 1),
                claimed.version())
            .orElseThrow();

    assertThat(b.claim(triggered, "b", LONG)).isEmpty();

    await().atMost(Duration.ofSeconds(10)).until(() -> !c.expiredClaims(10).isEmpty());
    assertThat(c.expiredClaims(10)).containsExactly(triggered);
    Claimed taken = c.claim(triggered, "c", LONG).orElseThrow();
    assertThat(taken.recovery()).isFalse();
    assertThat(c.expiredClaims(10)).isEmpty();
  }

  @Test
  void expiredClaims_pausedJobOfADeadInstance_notReported() {
    JobRecord r = a.upsert(fresh("j", T0)).record();
    JobRecord claimed = a.claim(r, "a", SHORT).orElseThrow().record();
    b.replace(
            claimed.withSchedule(JobState.PAUSED, T0, null, FireKind.TIMETABLE, 1),
            claimed.version())
        .orElseThrow();
    Instant after = a.storeNow().plus(SHORT).plusMillis(100);

    awaitStoreClockPast(c, after);
    assertThat(c.expiredClaims(10)).isEmpty();
  }

  /**
   * The overdue sweep's read: unclaimed jobs due more than the given time ago by the store's clock,
   * earliest first, up to the limit; not a claimed, running, paused or future job.
   */
  @Test
  void overdueJobs_unclaimedJobsDueLongAgo_earliestFirst() {
    Instant now = a.storeNow();
    a.upsert(fresh("late-2", T0.plusSeconds(2)));
    a.upsert(fresh("late-1", T0.plusSeconds(1)));
    a.upsert(fresh("late-3", T0.plusSeconds(3)));
    a.upsert(fresh("just-due", now.minusSeconds(1)));
    a.upsert(fresh("future", now.plusSeconds(3600)));
    JobRecord claimed = a.upsert(fresh("claimed", T0)).record();
    a.claim(claimed, "a", LONG).orElseThrow();
    JobRecord paused = a.upsert(fresh("paused", T0)).record();
    a.replace(
            paused.withSchedule(JobState.PAUSED, T0, null, FireKind.TIMETABLE, 1), paused.version())
        .orElseThrow();

    ClusterStore.Overdue all = b.overdueJobs(Duration.ofMinutes(1), null, 10);
    assertThat(all.jobs()).extracting(JobRecord::key).containsExactly("late-1", "late-2", "late-3");
    assertThat(all.next()).as("a page that reached the end").isNull();
    assertThat(b.overdueJobs(Duration.ofMinutes(1), null, 2).jobs())
        .extracting(JobRecord::key)
        .containsExactly("late-1", "late-2");
    assertThat(c.overdueJobs(Duration.ofMinutes(1), null, 10).jobs().get(0))
        .isEqualTo(a.find("late-1").orElseThrow());
  }

  /**
   * The sweep reads page after page: a full page says where it ended, the next page starts strictly
   * after it (in due time, then key order: two jobs due at one instant are not skipped), and the
   * page that reaches the end says so.
   */
  @Test
  void overdueJobs_pages_continueAfterTheLastRowUntilTheEnd() {
    for (String key : List.of("d", "b", "e", "a", "c")) {
      a.upsert(fresh(key, key.equals("e") ? T0 : T0.plusSeconds(1))); // e first, then a..d tied
    }

    ClusterStore.Overdue first = b.overdueJobs(Duration.ofMinutes(1), null, 2);
    ClusterStore.Overdue second = b.overdueJobs(Duration.ofMinutes(1), first.next(), 2);
    ClusterStore.Overdue third = b.overdueJobs(Duration.ofMinutes(1), second.next(), 2);

    assertThat(first.jobs()).extracting(JobRecord::key).containsExactly("e", "a");
    assertThat(first.next()).isEqualTo(new WindowCursor(T0.plusSeconds(1), "a"));
    assertThat(second.jobs()).extracting(JobRecord::key).containsExactly("b", "c");
    assertThat(third.jobs()).extracting(JobRecord::key).containsExactly("d");
    assertThat(third.next()).as("the last page").isNull();
  }

  /** A released claim leaves the job unclaimed: the sweep sees it again. */
  @Test
  void overdueJobs_releasedClaim_listedAgain() {
    JobRecord j = a.upsert(fresh("j", T0)).record();
    a.claim(j, "a", LONG).orElseThrow();
    assertThat(b.overdueJobs(Duration.ofMinutes(1), null, 10).jobs()).isEmpty();

    assertThat(a.release("j", "a", T0)).isTrue();

    assertThat(b.overdueJobs(Duration.ofMinutes(1), null, 10).jobs())
        .extracting(JobRecord::key)
        .containsExactly("j");
  }

  // ---- change feed -----------------------------------------------------------------------------

  /** A change made through one instance is in the next read of another, at once. */
  @Test
  void changesSince_writesOfAnotherInstance_inTheNextRead() {
    long cursor = b.changeCursor();
    JobRecord x = a.upsert(fresh("x", T0)).record();
    a.upsert(fresh("y", T0));
    a.delete("y");
    JobRecord xPaused =
        a.replace(x.withSchedule(JobState.PAUSED, T0, null, FireKind.TIMETABLE, 1), x.version())
            .orElseThrow();

    ClusterStore.Changes changes = b.changesSince(cursor, 100);

    assertThat(changes.changed()).containsExactly(xPaused);
    assertThat(changes.deleted()).containsExactly("y");
  }

  /** Claims and write-backs are changes too: other instances dequeue a claimed job. */
  @Test
  void changesSince_claimAndWriteBack_reported() {
    JobRecord r = a.upsert(fresh("j", T0)).record();
    long cursor = b.changeCursor();
    JobRecord claimed = a.claim(r, "a", LONG).orElseThrow().record();

    assertThat(b.changesSince(cursor, 100).changed()).containsExactly(claimed);

    JobRecord after = a.runFinished(finished(claimed, "a")).orElseThrow();
    assertThat(b.changesSince(cursor, 100).changed()).containsExactly(after);
  }

  /** Deleted and created again after the cursor: reported as both (deletions apply first). */
  @Test
  void changesSince_deletedAndCreatedAgain_reportedAsBoth() {
    a.upsert(fresh("x", T0));
    awaitSettled();
    long cursor = b.changeCursor();
    a.delete("x");
    JobRecord again = a.upsert(fresh("x", T0.plusSeconds(9))).record();

    ClusterStore.Changes changes = b.changesSince(cursor, 100);

    assertThat(changes.changed()).containsExactly(again);
    assertThat(changes.deleted()).containsExactly("x");
  }

  /** Changes made before the cursor was taken, and settled, are not reported again. */
  @Test
  void changeCursor_afterSettledChanges_reportsOnlyLaterOnes() {
    a.upsert(fresh("old", T0));
    awaitSettled();
    long cursor = b.changeCursor();
    a.upsert(fresh("new", T0));

    assertThat(b.changesSince(cursor, 100).changed())
        .extracting(JobRecord::key)
        .containsExactly("new");
  }

  /** Reading page by page from the returned cursors reaches every change, in order. */
  @Test
  void changesSince_pageByPage_reachesEveryChange() {
    long cursor = b.changeCursor();
    for (int i = 0; i < 25; i++) {
      a.upsert(fresh(String.format("k%02d", i), T0));
    }
    Map<String, JobRecord> seen = new HashMap<>();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              long from = cursor;
              for (int page = 0; page < 50; page++) {
                ClusterStore.Changes p = b.changesSince(from, 7);
                assertThat(p.changed().size() + p.deleted().size()).isLessThanOrEqualTo(7);
                p.changed().forEach(r -> seen.put(r.key(), r));
                if (p.cursor() == from) {
                  break;
                }
                from = p.cursor();
              }
              return seen.size() == 25;
            });
  }

  /**
   * More changes than a page, read at once (none settled yet on a database store): reads that each
   * go on from the cursor the last one returned reach every change, each once. (A feed that
   * returned its unsettled changes again on every read returned the same first page five times.)
   */
  @Test
  void changesSince_morePendingThanAPage_readsGoOnToLaterChanges() {
    long cursor = b.changeCursor();
    List<String> written = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      written.add(a.upsert(fresh(String.format("p%02d", i), T0)).record().key());
    }
    List<String> read = new ArrayList<>();
    long from = cursor;
    for (int i = 0; i < 5; i++) {
      ClusterStore.Changes p = b.changesSince(from, 7);
      assertThat(p.changed().size() + p.deleted().size()).isLessThanOrEqualTo(7);
      p.changed().forEach(r -> read.add(r.key()));
      from = p.cursor();
    }
    assertThat(read).containsExactlyInAnyOrderElementsOf(written);
  }

  /** A read from an earlier cursor than the last one returned gets those changes again. */
  @Test
  void changesSince_fromAnEarlierCursor_returnsChangesAgain() {
    long cursor = b.changeCursor();
    JobRecord x = a.upsert(fresh("x", T0)).record();
    ClusterStore.Changes first = b.changesSince(cursor, 100);
    assertThat(first.changed()).containsExactly(x);

    assertThat(b.changesSince(cursor - 1, 100).changed()).contains(x);
  }

  /**
   * Concurrent writers through two instances while a third follows the feed from cursor to cursor:
   * once the writes stop and settle, the reader has seen every job as it finally is. (Seen to fail
   * with a feed whose cursor passes unsettled changes: changeSettle(Duration.ZERO).)
   */
  @Test
  void changesSince_concurrentWriters_readerLosesNoChange() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    Map<String, JobRecord> seen = new HashMap<>();
    long cursor = c.changeCursor();
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        ClusterStore s = w % 2 == 0 ? a : b;
        int id = w;
        writers.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 60; i++) {
                    String key = "w" + id + "-" + (i % 15);
                    JobRecord r = s.upsert(fresh(key, T0.plusSeconds(i))).record();
                    s.replace(
                        r.withSchedule(
                            JobState.SCHEDULED, T0, T0.plusSeconds(i + 1000L), FireKind.TRIGGER, 1),
                        r.version());
                  }
                  return null;
                }));
      }
      while (!writers.stream().allMatch(Future::isDone)) {
        cursor = drainInto(seen, cursor);
      }
      for (Future<?> f : writers) {
        f.get(60, TimeUnit.SECONDS);
      }
      awaitSettled();
      drainInto(seen, cursor);
    } finally {
      pool.shutdownNow();
    }
    for (JobRecord r : c.findAll()) {
      assertThat(seen.get(r.key())).as(r.key()).isEqualTo(r);
    }
  }

  private long drainInto(Map<String, JobRecord> seen, long cursor) {
    for (; ; ) {
      ClusterStore.Changes p = c.changesSince(cursor, 50);
      for (String k : p.deleted()) {
        seen.remove(k);
      }
      p.changed()
          .forEach(r -> seen.merge(r.key(), r, (x, y) -> y.version() >= x.version() ? y : x));
      if (p.changed().size() + p.deleted().size() < 50 || p.cursor() == cursor) {
        return p.cursor();
      }
      cursor = p.cursor();
    }
  }

  /** Waits until every change made so far has settled (database stores hold their cursor back). */
  protected void awaitSettled() {
    awaitStoreClockPast(a, a.storeNow().plus(SETTLE).plusMillis(50));
  }

  // ---- clock -----------------------------------------------------------------------------------

  @Test
  void storeNow_closeToThisMachinesClock() {
    Instant now = Instant.now();
    assertThat(Duration.between(now, a.storeNow()).abs()).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void awaitChange_returnsWithinMax() throws Exception {
    long start = System.nanoTime();
    a.awaitChange(Duration.ofMillis(100));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  // ---- calendars across instances --------------------------------------------------------------

  /**
   * One instance deletes a calendar; another, whose engine still saw it, then upserts a job on it:
   * the upsert is refused naming the job and the calendar, alone or in a batch, and writes nothing.
   * The other order is refused by the delete, naming the job.
   */
  @Test
  void upsertOnACalendarAnotherInstanceDeleted_refusedNamingJobAndCalendar() {
    dev.kairos.BusinessCalendar weekdays =
        dev.kairos.BusinessCalendar.in(java.time.ZoneOffset.UTC).weekdays();
    JobRecord onDesk = JobRecord.fresh(JobStoreContract.spec("settle").excluding("desk"), T0);
    a.putCalendar("desk", weekdays);
    assertThat(b.deleteCalendar("desk")).isTrue();

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.upsert(onDesk))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("job 'settle'")
        .hasMessageContaining("calendar 'desk'");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> a.upsertAll(List.of(fresh("other", T0), onDesk)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("job 'settle'")
        .hasMessageContaining("calendar 'desk'");
    assertThat(a.findAll()).isEmpty();

    a.putCalendar("desk", weekdays);
    a.upsert(onDesk);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.deleteCalendar("desk"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'settle'");
    assertThat(b.calendars()).containsOnlyKeys("desk");
  }
}
