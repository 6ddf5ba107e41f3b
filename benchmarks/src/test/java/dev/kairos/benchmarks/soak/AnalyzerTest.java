package dev.kairos.benchmarks.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The analyzer on synthetic ledgers: a clean ledger passes, and each broken promise is found,
 * counted and named, while what the promises allow (a duplicate across a kill, a trigger after a
 * pause, a slot coalesced or skipped while behind) is not.
 */
class AnalyzerTest {
  private static final long S = 1_000_000; // one second in µs
  private static final long T0 = 1_800_000_000L * S;

  /** A ledger under construction: one instance, jobs with 1 s slots from T0, horizon T0 + 20 s. */
  private final List<String> lines = new ArrayList<>();

  AnalyzerTest() {
    add("JOB", "steady-c", S, T0, "CATCH_UP", "steady", S);
    add("JOB", "steady-f", S, T0, "FIRE_ONCE", "steady", S);
    add("JOB", "race-0", S, T0, "FIRE_ONCE", "race", S);
    add("START", "s0.g0", T0 - 5 * S);
    add("STOP", "s0.g0", T0 + 20 * S);
    add("HORIZON", T0 + 20 * S);
  }

  private void add(Object... fields) {
    StringBuilder sb = new StringBuilder();
    for (Object f : fields) {
      sb.append(sb.length() == 0 ? "" : "\t").append(f);
    }
    lines.add(sb.toString());
  }

  private void run(String instance, String key, long scheduled, long start, int missed) {
    add("RUN", instance, key, scheduled, start, start, 1, missed, false);
  }

  /** A run that says {@code ctx.recovery()}. */
  private void recovery(String instance, String key, long scheduled, long start) {
    add("RUN", instance, key, scheduled, start, start, 1, 0, true);
  }

  /** Every slot of both steady jobs up to the horizon, 3 ms late, on instance s0.g0. */
  private void allSlots() {
    for (long t = T0; t <= T0 + 20 * S; t += S) {
      run("s0.g0", "steady-c", t, t + 3_000, 0);
      run("s0.g0", "steady-f", t, t + 3_000, 0);
    }
  }

  private void call(String id, String key, String op, long begin, long end, boolean result) {
    add("CALL", "s0.g0", id, key, op, begin);
    add("DONE", "s0.g0", id, end, result);
  }

  private Verdict verdict() {
    return Analyzer.defaults().analyze(Ledger.parse(lines));
  }

  @Test
  void cleanLedger_passes() {
    allSlots();
    Verdict v = verdict();
    assertThat(v.passed()).isTrue();
    assertThat(v.slots()).allSatisfy(s -> assertThat(s.ran).isEqualTo(16)); // up to horizon - 5 s
    assertThat(v.latenessMicros()).hasSize(42).containsOnly(3_000L);
    assertThat(v.render()).contains("VERDICT: PASS").contains("p99 3.0 ms");
  }

  @Test
  void ledgerWithoutRuns_fails() {
    Verdict v = verdict();
    assertThat(v.passed()).isFalse();
    assertThat(v.render()).contains("no run recorded").contains("VERDICT: FAIL");
  }

  @Test
  void sameFireTwiceWithoutKill_isAnUnexplainedDuplicate() {
    allSlots();
    run("s0.g0", "steady-c", T0 + 4 * S, T0 + 6 * S, 0);
    Verdict v = verdict();
    assertThat(v.passed()).isFalse();
    assertThat(v.duplicates().count()).isEqualTo(1);
    assertThat(v.duplicates().examples().get(0)).contains("steady-c").contains(":04Z");
    assertThat(v.atLeastOnce().count()).isZero();
  }

  @Test
  void sameFireAgainAfterItsInstanceWasKilled_isAtLeastOnce() {
    lines.removeIf(l -> l.startsWith("STOP"));
    add("KILL", "s0.g0", T0 + 4 * S + 500_000);
    add("START", "s0.g1", T0 + 5 * S);
    add("STOP", "s0.g1", T0 + 20 * S);
    allSlots();
    recovery("s0.g1", "steady-c", T0 + 4 * S, T0 + 6 * S); // re-run of the fire in flight
    Verdict v = verdict();
    assertThat(v.passed()).isTrue();
    assertThat(v.atLeastOnce().count()).isEqualTo(1);
    assertThat(v.duplicates().count()).isZero();
    assertThat(v.unflagged().count()).isZero();
  }

  /** The ledger of a fire cut off by a kill at 4.5 s and run again after the restart. */
  private void killedAndRunAgain(boolean flagged) {
    lines.removeIf(l -> l.startsWith("STOP"));
    add("KILL", "s0.g0", T0 + 4 * S + 500_000);
    add("START", "s0.g1", T0 + 5 * S);
    add("STOP", "s0.g1", T0 + 20 * S);
    allSlots();
    add("RUN", "s0.g1", "steady-c", T0 + 4 * S, T0 + 6 * S, T0 + 6 * S, 1, 0, flagged);
  }

  @Test
  void reRunOfAKilledRunWithoutRecovery_isCountedAndShown() {
    killedAndRunAgain(false);
    Verdict v = verdict();
    assertThat(v.passed()).isTrue(); // counted, not judged (see Verdict)
    assertThat(v.unflagged().count()).isEqualTo(1);
    assertThat(v.unflagged().examples().get(0))
        .contains("steady-c")
        .contains("killed 497.0 ms later")
        .contains("without recovery()");
    assertThat(v.render()).contains("re-runs of a killed run without recovery()");
  }

  @Test
  void reRunOfATriggerOfAPausedJob_isCounted_andShownPaused() {
    killedAndRunAgain(false);
    call("p", "steady-c", "PAUSE", T0 + 3 * S, T0 + 3 * S + 2_000, true);
    call("t", "steady-c", "TRIGGER", T0 + 4 * S - 1_000, T0 + 4 * S, true);
    Verdict v = verdict();
    assertThat(v.unflagged().count()).isEqualTo(1); // the engine flags these since stop 49
    assertThat(v.unflagged().examples().get(0)).contains("(the job paused)");
  }

  @Test
  void reRunOfATriggerOfAPausedJob_scheduledAgainBeforeTheKill_isShownPaused() {
    killedAndRunAgain(false);
    call("p", "steady-c", "PAUSE", T0 + 3 * S, T0 + 3 * S + 2_000, true);
    call("t", "steady-c", "TRIGGER", T0 + 4 * S - 1_000, T0 + 4 * S, true);
    // schedule() of a job that exists is an upsert: the job stays paused (seen in H2 soaks)
    call("s", "steady-c", "SCHEDULE", T0 + 4 * S + 1_000, T0 + 4 * S + 2_000, true);
    assertThat(verdict().unflagged().examples().get(0)).contains("(the job paused)");
  }

  @Test
  void reRunOfAKilledRunOfAJobPausedThenDeletedAndMadeAgain_isNotShownPaused() {
    killedAndRunAgain(false);
    call("p", "steady-c", "PAUSE", T0 + 3 * S, T0 + 3 * S + 2_000, true);
    call("u", "steady-c", "UNSCHEDULE", T0 + 3 * S + 100_000, T0 + 3 * S + 102_000, true);
    call("s", "steady-c", "SCHEDULE", T0 + 3 * S + 200_000, T0 + 3 * S + 202_000, true);
    assertThat(verdict().unflagged().examples().get(0)).doesNotContain("paused");
  }

  @Test
  void reRunOfAKilledRunOfAJobWhosePauseNeverReturned_isShownPaused() {
    killedAndRunAgain(false);
    add("CALL", "s0.g0", "p", "steady-c", "PAUSE", T0 + 4 * S + 400_000); // killed in the call
    assertThat(verdict().unflagged().examples().get(0)).contains("(the job paused)");
  }

  @Test
  void callsAround_listsTheCallsInTheOrderTheyBegan() {
    call("b", "steady-c", "RESUME", T0 + 3 * S, T0 + 3 * S + 1_000, true);
    call("a", "steady-c", "PAUSE", T0 + 2 * S, T0 + 2 * S + 1_000, true);
    String text = Analyzer.callsAround(Ledger.parse(lines), "steady-c", T0 + 4 * S, T0 + 5 * S);
    assertThat(text.indexOf("pause")).isPositive().isLessThan(text.indexOf("resume"));
  }

  @Test
  void reRunOfAKilledRunOfAJobPausedThroughTheKill_isShownPaused() {
    killedAndRunAgain(false);
    call("p", "steady-c", "PAUSE", T0 + 4 * S + 100_000, T0 + 4 * S + 102_000, true);
    Verdict v = verdict();
    assertThat(v.unflagged().examples().get(0)).contains("(the job paused)");
    assertThat(v.duplicates().count()).isZero();
  }

  @Test
  void reRunOfAKilledRunOfAJobPausedAndResumedBeforeTheKill_isNotShownPaused() {
    killedAndRunAgain(false);
    call("p", "steady-c", "PAUSE", T0 + 4 * S + 100_000, T0 + 4 * S + 102_000, true);
    call("r", "steady-c", "RESUME", T0 + 4 * S + 200_000, T0 + 4 * S + 202_000, true);
    Verdict v = verdict();
    assertThat(v.unflagged().count()).isEqualTo(1);
    assertThat(v.unflagged().examples().get(0)).doesNotContain("paused");
  }

  @Test
  void sameFireAgainWhileItsInstanceWasFrozen_isAtLeastOnce() {
    allSlots();
    add("FREEZE", "s0.g0", T0 + 4 * S + 100_000);
    add("THAW", "s0.g0", T0 + 13 * S);
    add("START", "s1.g0", T0 - 5 * S);
    run("s1.g0", "steady-c", T0 + 4 * S, T0 + 11 * S, 0); // recovered after the lease
    Verdict v = verdict();
    assertThat(v.duplicates().count()).isZero();
    assertThat(v.atLeastOnce().count()).isEqualTo(1);
    assertThat(v.atLeastOnce().examples().get(0)).contains("frozen");
  }

  /**
   * Clustered, lease 6 s: s0.g0 is killed 0.5 s into fire 4 of steady-c; s1 runs it again and the
   * slots due meanwhile; the failover time is the kill to the first run after it of each fire.
   */
  private Verdict killedInCluster(long recoveredAfterKill) {
    add("LEASE", 6 * S);
    lines.removeIf(l -> l.startsWith("STOP"));
    long kill = T0 + 4 * S + 500_000;
    add("KILL", "s0.g0", kill);
    add("START", "s1.g0", T0 - 5 * S);
    add("STOP", "s1.g0", T0 + 20 * S);
    for (long t = T0; t <= T0 + 20 * S; t += S) {
      String on = t <= T0 + 4 * S ? "s0.g0" : "s1.g0";
      // Slots due before the recovery wait for it (s0.g0 had claimed them), later ones are on time.
      long start = t <= T0 + 4 * S ? t + 3_000 : Math.max(t + 3_000, kill + recoveredAfterKill);
      add("RUN", on, "steady-c", t, start, start, 1, 0, false);
      add("RUN", on, "steady-f", t, start, start, 1, 0, false);
    }
    recovery("s1.g0", "steady-c", T0 + 4 * S, kill + recoveredAfterKill); // the fire it held
    run("s1.g0", "race-0", T0 + S, T0 + S + 3_000, 0); // s1.g0 was up before the kill
    return verdict();
  }

  @Test
  void clusteredKill_whileNoOtherInstanceWasUp_isListedButNotJudged() {
    killedInCluster(9 * S);
    lines.removeIf(l -> l.startsWith("RUN\ts1.g0\trace-0")); // s1.g0 had run nothing yet
    Verdict v = verdict();
    assertThat(v.slowFailover().count()).isZero();
    assertThat(v.failovers()).singleElement().asString().contains("not judged");
  }

  @Test
  void clusteredKill_failoverWithinLeaseAndAThird_isReportedAndPasses() {
    Verdict v = killedInCluster(6_500_000);
    assertThat(v.failoverBoundMicros()).isEqualTo(8 * S);
    assertThat(v.failoverMicros()).containsExactly(6_500_000L);
    assertThat(v.slowFailover().count()).isZero();
    assertThat(v.render())
        .contains("failover after SIGKILL/SIGSTOP (1 faults")
        .contains("max 6500.0 ms");
    assertThat(v.passed()).isTrue();
  }

  @Test
  void clusteredKill_failoverSlowerThanLeaseAndAThird_fails() {
    Verdict v = killedInCluster(9 * S);
    assertThat(v.slowFailover().count()).isEqualTo(1);
    assertThat(v.slowFailover().examples().get(0))
        .contains("SIGKILL of s0.g0")
        .contains("9000.0 ms")
        .contains("steady-c fire");
    assertThat(v.passed()).isFalse();
  }

  @Test
  void withoutLease_noFailoverIsJudged() {
    allSlots();
    assertThat(verdict().failoverBoundMicros()).isZero();
    assertThat(verdict().render()).doesNotContain("failover");
  }

  @Test
  void runBeforeItsSlot_isEarly() {
    allSlots();
    lines.removeIf(l -> l.contains("steady-f\t" + (T0 + 7 * S) + "\t"));
    run("s0.g0", "steady-f", T0 + 7 * S, T0 + 7 * S - 2_500_000, 0);
    Verdict v = verdict();
    assertThat(v.passed()).isFalse();
    assertThat(v.early().count()).isEqualTo(1);
    assertThat(v.early().worstMicros()).isEqualTo(2_500_000);
    assertThat(v.early().examples().get(0)).contains("steady-f").contains("2500.0 ms early");
  }

  @Test
  void runAfterPauseReturned_isFound() {
    allSlots();
    call("1", "race-0", "PAUSE", T0 + 2 * S, T0 + 2 * S + 5_000, true);
    run("s0.g0", "race-0", T0 + 3 * S, T0 + 3 * S + 1_000, 0);
    Verdict v = verdict();
    assertThat(v.passed()).isFalse();
    assertThat(v.afterPause().count()).isEqualTo(1);
    assertThat(v.afterPause().examples().get(0)).contains("race-0").contains("pause()");
  }

  @Test
  void runAfterPauseThenResume_orATriggerDuringThePause_isAllowed() {
    allSlots();
    call("1", "race-0", "PAUSE", T0 + 2 * S, T0 + 2 * S + 5_000, true);
    call("2", "race-0", "TRIGGER", T0 + 2 * S + 100_000, T0 + 2 * S + 105_000, true);
    run("s0.g0", "race-0", T0 + 2 * S + 100_000, T0 + 2 * S + 106_000, 0);
    call("3", "race-0", "RESUME", T0 + 5 * S, T0 + 5 * S + 1_000, true);
    run("s0.g0", "race-0", T0 + 6 * S, T0 + 6 * S + 1_000, 0);
    call("4", "race-0", "PAUSE", T0 + 8 * S, T0 + 8 * S + 1_000, false); // unknown key: no pause
    run("s0.g0", "race-0", T0 + 9 * S, T0 + 9 * S + 1_000, 0);
    assertThat(verdict().afterPause().count()).isZero();
  }

  @Test
  void triggerBeforeThePause_doesNotLicenseARunAfterIt() {
    allSlots();
    call("1", "race-0", "TRIGGER", T0 + 2 * S, T0 + 2 * S + 1_000, true);
    call("2", "race-0", "PAUSE", T0 + 2 * S + 10_000, T0 + 2 * S + 11_000, true);
    run("s0.g0", "race-0", T0 + 2 * S, T0 + 2 * S + 137_000, 0);
    Verdict v = verdict();
    assertThat(v.afterPause().count()).isEqualTo(1);
    assertThat(v.afterPause().worstMicros()).isEqualTo(126_000);
  }

  /** The children's log clock (local time of day, ms) at {@code micros}. */
  private static int logMs(long micros) {
    return (int)
        (java.time.Instant.EPOCH
                .plus(micros, java.time.temporal.ChronoUnit.MICROS)
                .atZone(java.time.ZoneId.systemDefault())
                .toLocalTime()
                .toNanoOfDay()
            / 1_000_000);
  }

  /** s0.g0 killed after a pause it answered; the restarted s0.g1 runs the job. */
  private void pauseThenKillThenRunOnTheNextInstance() {
    allSlots();
    call("1", "race-0", "PAUSE", T0 + 2 * S, T0 + 2 * S + 5_000, true);
    add("START", "s0.g1", T0 + 2 * S + 50_000);
    run("s0.g1", "race-0", T0 + 3 * S, T0 + 3 * S + 1_000, 0);
  }

  @Test
  void runAfterAPauseWhoseCommitTheKillLost_isShownApart_asTheStoresLoss() {
    pauseThenKillThenRunOnTheNextInstance();
    LostCommits.Commit pause = new LostCommits.Commit(logMs(T0 + 2 * S + 4_000), 7, false);
    LostCommits.Report lost =
        new LostCommits.Report(
            List.of(
                new LostCommits.Loss("s0.g0", "s0.g1", "race-0", 7, false, "t", 6, List.of(pause))),
            1,
            0);

    Verdict v = Analyzer.defaults().analyze(Ledger.parse(lines), lost);

    assertThat(v.afterPause().count()).isZero();
    assertThat(v.afterPauseLost().count()).isEqualTo(1);
    assertThat(v.afterPauseLost().examples().get(0))
        .contains("race-0")
        .contains("pause() returned on s0.g0")
        .contains("it read version 6");
    assertThat(v.passed()).as("an answered commit lost fails, whoever lost it").isFalse();
    assertThat(v.render())
        .contains("whose commit the kill lost (the store lost it):")
        .contains("commits missing after a restart");
  }

  @Test
  void runAfterAPause_whenTheLostCommitIsNotThePausesOwn_isJudged() {
    pauseThenKillThenRunOnTheNextInstance();
    // a later commit of the job (a write-back 500 ms after the pause returned) was lost, not the
    // pause: the next instance read the paused version
    LostCommits.Commit pause = new LostCommits.Commit(logMs(T0 + 2 * S + 4_000), 7, false);
    LostCommits.Commit later = new LostCommits.Commit(logMs(T0 + 2 * S + 505_000), 8, false);
    LostCommits.Report lost =
        new LostCommits.Report(
            List.of(
                new LostCommits.Loss(
                    "s0.g0", "s0.g1", "race-0", 8, false, "t", 7, List.of(pause, later))),
            1,
            0);

    Verdict v = Analyzer.defaults().analyze(Ledger.parse(lines), lost);

    assertThat(v.afterPause().count()).isEqualTo(1);
    assertThat(v.afterPauseLost().count()).isZero();
    assertThat(v.passed()).isFalse();
  }

  @Test
  void runAfterAPause_withoutTheLogs_isJudged() {
    pauseThenKillThenRunOnTheNextInstance();

    Verdict v = verdict();

    assertThat(v.afterPause().count()).isEqualTo(1);
    assertThat(v.passed()).isFalse();
    assertThat(v.render()).doesNotContain("whose commit the kill lost");
  }

  @Test
  void slotThatNeverRan_isMissing() {
    allSlots();
    lines.removeIf(l -> l.contains("steady-c\t" + (T0 + 9 * S) + "\t"));
    Verdict v = verdict();
    assertThat(v.passed()).isFalse();
    assertThat(v.missing().count()).isEqualTo(1);
    assertThat(v.missing().examples().get(0)).contains("steady-c").contains(":09Z");
  }

  @Test
  void slotsAfterTheLastRun_areBehindNotMissing() {
    allSlots();
    for (long t = T0 + 12 * S; t <= T0 + 20 * S; t += S) {
      long slot = t;
      lines.removeIf(l -> l.contains("steady-c\t" + slot + "\t"));
    }
    Verdict v = verdict();
    assertThat(v.passed()).isTrue();
    assertThat(v.behind().count()).isEqualTo(4); // T0+12 .. T0+15; later ones are in the margin
    assertThat(v.missing().count()).isZero();
  }

  @Test
  void slotsCoalescedByFireOnce_areNotMissing() {
    allSlots();
    for (long t = T0 + 9 * S; t <= T0 + 11 * S; t += S) {
      long slot = t;
      lines.removeIf(l -> l.contains("steady-f\t" + slot + "\t"));
    }
    run("s0.g0", "steady-f", T0 + 11 * S, T0 + 11 * S + 10_000, 3);
    Verdict v = verdict();
    assertThat(v.passed()).isTrue();
    assertThat(v.slots()).anySatisfy(s -> assertThat(s.coalesced).isEqualTo(2));
  }

  @Test
  void skipJob_mayDropSlotsOnlyWhenBehindByMoreThanItsThreshold() {
    add("JOB", "steady-s", S, T0, "SKIP", "steady", 5 * S);
    for (long t = T0; t <= T0 + 20 * S; t += S) {
      if (t < T0 + 2 * S || t > T0 + 9 * S && t != T0 + 14 * S) {
        run("s0.g0", "steady-s", t, t + 1_000, 0);
      }
    }
    Verdict v = verdict();
    Verdict.Slots s =
        v.slots().stream().filter(x -> x.key.equals("steady-s")).findFirst().orElseThrow();
    assertThat(s.skipped).isEqualTo(8); // T0+2 .. T0+9: the next run (T0+10) is 8 s after T0+2
    assertThat(s.missing).isEqualTo(1); // T0+14: the next run is 1 s later, not behind
    assertThat(v.missing().examples()).singleElement().asString().contains("steady-s");
  }
}
