package dev.kairos.benchmarks.soak;

import dev.kairos.benchmarks.soak.Ledger.Call;
import dev.kairos.benchmarks.soak.Ledger.Job;
import dev.kairos.benchmarks.soak.Ledger.Life;
import dev.kairos.benchmarks.soak.Ledger.Op;
import dev.kairos.benchmarks.soak.Ledger.Policy;
import dev.kairos.benchmarks.soak.Ledger.Run;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Checks a {@link Ledger} against Kairos's promises and returns a {@link Verdict}:
 *
 * <ul>
 *   <li><b>No duplicate</b>: a (job, scheduled fire time, attempt) runs once. A second run counts
 *       as <em>at-least-once</em> (explained) when an instance that ran an earlier copy was killed
 *       after that copy started and before the second started, or frozen (SIGSTOP) for a time that
 *       overlaps the two; otherwise it is unexplained.
 *   <li><b>No early run</b>: a timetable slot never starts, by the real clock, before its scheduled
 *       time (less {@code earlyTolerance}).
 *   <li><b>No run after pause</b>: no run starts after a successful {@code pause()} or {@code
 *       unschedule()} of its job returned, unless a {@code resume()}, {@code triggerNow()} or
 *       {@code schedule()} of that job may have taken effect since (one that overlaps or follows
 *       the blocking call and began before the run).
 *   <li><b>No missing slot</b> (steady jobs): every slot up to {@code horizon - margin} ran, was
 *       made up, was coalesced into a {@code fireOnce} run (its {@code missedFires}), or, under
 *       {@code skip}, was dropped because the job was behind: a gap of missing slots from {@code s}
 *       is a skip when the next run started more than the job's misfire threshold after {@code s}
 *       (only then can the rule have found {@code s} behind; it drops every missed slot at once).
 *       Slots after a job's last run are not missing but <em>behind</em>: the job had not caught up
 *       by the horizon (reported, not judged).
 * </ul>
 *
 * Lateness (real start minus scheduled time) is measured over on-time runs of timetable slots.
 */
final class Analyzer {
  /** How many examples each finding lists. */
  static final int EXAMPLES = 10;

  /** Calls that began this long (µs) before a blocking call are not searched for licences. */
  private static final long LONGEST_CALL = TimeUnit.MINUTES.toMicros(1);

  private final Duration earlyTolerance;
  private final Duration margin;

  /**
   * @param earlyTolerance a run this much before its slot is not yet early (clock granularity)
   * @param margin slots in this last part before the horizon are not required to have run
   */
  Analyzer(Duration earlyTolerance, Duration margin) {
    this.earlyTolerance = earlyTolerance;
    this.margin = margin;
  }

  /** The defaults: 1 ms early tolerance, 5 s margin. */
  static Analyzer defaults() {
    return new Analyzer(Duration.ofMillis(1), Duration.ofSeconds(5));
  }

  /** {@link #analyze(Ledger, LostCommits.Report)} without the children's logs. */
  Verdict analyze(Ledger ledger) {
    return analyze(ledger, null);
  }

  /**
   * The verdict on {@code ledger}. With {@code lost} (a one-instance soak whose children logged at
   * TRACE), a run after a pause or unschedule is set apart, still failing the verdict, when that
   * call's commit was lost with its instance's SIGKILL: the next instance of the slot read the job
   * older than that commit, so the store, not the engine, broke the promise.
   */
  Verdict analyze(Ledger ledger, LostCommits.Report lost) {
    Verdict.Builder v = new Verdict.Builder(ledger, lost);
    Map<String, Job> jobs = new HashMap<>();
    ledger.jobs().forEach(j -> jobs.put(j.key(), j));
    duplicates(ledger, v);
    early(ledger, jobs, v);
    afterPause(ledger, lost, v);
    for (Job j : ledger.jobs()) {
      if (j.steady()) {
        slots(ledger, j, v);
      }
    }
    lateness(ledger, jobs, v);
    failover(ledger, v);
    return v.build();
  }

  /** Runs that began this long (µs) before a fault are not searched for fires it held. */
  private static final long HELD_WINDOW = TimeUnit.MINUTES.toMicros(1);

  /**
   * Failover, in clustered runs (the ledger names the lease): for each SIGKILL or SIGSTOP of an
   * instance at {@code k}, the time until the first run after {@code k}, on any instance, of each
   * fire it may have held: (a) a fire it had started before {@code k} that ran again after it (its
   * claim lapsed and another instance, or the restarted one, recovered it), measured from {@code
   * k}; (b) every steady slot due from one period before {@code k} to one lease after it that had
   * not started by {@code k} (the instance may have claimed it), of a job that was on time at
   * {@code k} (its slot before those ran by then), measured from the later of {@code k} and the
   * slot. The fault's failover time is the longest of these; a fault while no instance of another
   * slot was up (it had run something) and unfrozen throughout the next lease + lease/3 is listed
   * but not judged, as there was nobody to fail over to; a fault whose failover takes more than
   * lease + lease/3 fails the verdict.
   */
  private static void failover(Ledger ledger, Verdict.Builder v) {
    long lease = ledger.lease();
    if (lease == Ledger.NEVER) {
      return;
    }
    long bound = lease + lease / 3;
    v.failoverBound(bound);
    Map<String, List<Run>> byFire = new HashMap<>(); // key@scheduled, by start
    for (Run r : ledger.runs()) {
      byFire.computeIfAbsent(r.key() + "@" + r.scheduled(), k -> new ArrayList<>()).add(r);
    }
    byFire.values().forEach(l -> l.sort(Comparator.comparingLong(Run::start)));
    List<Object[]> faults = new ArrayList<>(); // instance, at, kind
    for (Life l : ledger.lives()) {
      if (l.killed()) {
        faults.add(new Object[] {l.instance(), l.end(), "SIGKILL"});
      }
    }
    for (Ledger.Freeze f : ledger.freezes()) {
      faults.add(new Object[] {f.instance(), f.from(), "SIGSTOP"});
    }
    faults.sort(Comparator.comparingLong(f -> (Long) f[1]));
    for (Object[] f : faults) {
      String instance = (String) f[0];
      long k = (Long) f[1];
      long worst = -1;
      String what = "no fire due or held";
      for (Run r : ledger.runs()) { // (a) fires it had started
        if (r.instance().equals(instance) && r.start() <= k && r.start() >= k - HELD_WINDOW) {
          Run next = firstAfter(byFire.get(r.key() + "@" + r.scheduled()), k);
          if (next != null && next.start() - k > worst) {
            worst = next.start() - k;
            what = describe(next, "started on " + instance + " before it");
          }
        }
      }
      for (Job j : ledger.jobs()) { // (b) steady slots due around it, not started by then
        if (!j.steady()) {
          continue;
        }
        long from = Math.max(j.first(), k - j.period());
        long t =
            j.first() + Math.floorDiv(from - j.first() + j.period() - 1, j.period()) * j.period();
        // Only a job that was on time at the fault: its slot before the window ran by then. A job
        // catching up a backlog (after an earlier fault, or a loaded machine) runs its slots late
        // whoever holds them; that is lateness, not failover.
        List<Run> before = byFire.get(j.key() + "@" + (t - j.period()));
        if (t - j.period() >= j.first() && (before == null || before.get(0).start() > k)) {
          continue;
        }
        for (; t <= k + lease; t += j.period()) {
          List<Run> copies = byFire.get(j.key() + "@" + t);
          if (copies == null || copies.get(0).start() <= k) {
            continue;
          }
          long delay = copies.get(0).start() - Math.max(k, t);
          if (delay > worst) {
            worst = delay;
            what = describe(copies.get(0), "due " + Verdict.ms(t - k) + " after it");
          }
        }
      }
      String cover = coveredBy(ledger, instance, k, bound);
      if (cover
          == null) { // every other instance was down or frozen meanwhile: nobody to fail over to
        v.failover(
            -1,
            false,
            f[2]
                + " of "
                + instance
                + " at "
                + Verdict.time(k)
                + ": not judged, no other instance was up throughout the next "
                + Verdict.ms(bound)
                + (worst < 0 ? "" : " (" + Verdict.ms(worst) + ", " + what + ")"));
        continue;
      }
      String example =
          f[2]
              + " of "
              + instance
              + " at "
              + Verdict.time(k)
              + ": "
              + (worst < 0 ? what : Verdict.ms(worst) + ", " + what);
      v.failover(worst, worst > bound, example);
    }
  }

  /**
   * An instance of another slot that was up through {@code [k, k + bound]}: it had recorded a run
   * by {@code k} (so it had started), was neither killed nor stopped before {@code k + bound}, and
   * was not frozen in that time; null if none.
   */
  private static String coveredBy(Ledger ledger, String instance, long k, long bound) {
    String slot = Ledger.slotOf(instance);
    for (Life l : ledger.lives()) {
      if (l.slot().equals(slot) || l.start() > k || l.end() < k + bound) {
        continue;
      }
      boolean ran =
          ledger.runs().stream().anyMatch(r -> r.instance().equals(l.instance()) && r.start() <= k);
      boolean frozen =
          ledger.freezes().stream()
              .anyMatch(
                  z -> z.instance().equals(l.instance()) && z.from() <= k + bound && z.to() >= k);
      if (ran && !frozen) {
        return l.instance();
      }
    }
    return null;
  }

  private static Run firstAfter(List<Run> sortedByStart, long t) {
    for (Run r : sortedByStart) {
      if (r.start() > t) {
        return r;
      }
    }
    return null;
  }

  private static String describe(Run r, String why) {
    return r.key()
        + " fire "
        + Verdict.time(r.scheduled())
        + " ("
        + why
        + ") first ran after it on "
        + r.instance()
        + " at "
        + Verdict.time(r.start())
        + (r.recovery() ? " (recovery)" : "");
  }

  private static void duplicates(Ledger ledger, Verdict.Builder v) {
    Map<String, Life> lives = new HashMap<>();
    ledger.lives().forEach(l -> lives.put(l.instance(), l));
    Map<String, List<Run>> byFire = new HashMap<>();
    for (Run r : ledger.runs()) {
      byFire
          .computeIfAbsent(
              r.key() + "@" + r.scheduled() + "#" + r.attempt(), k -> new ArrayList<>())
          .add(r);
    }
    for (List<Run> copies : byFire.values()) {
      if (copies.size() < 2) {
        continue;
      }
      copies.sort(Comparator.comparingLong(Run::start));
      for (int i = 1; i < copies.size(); i++) {
        Run later = copies.get(i);
        long killedAfter = -1;
        boolean frozen = false;
        for (Run earlier : copies.subList(0, i)) {
          Life l = lives.get(earlier.instance());
          if (l != null && l.killed() && l.end() >= earlier.start() && l.end() <= later.start()) {
            killedAfter = l.end() - earlier.start();
          }
          for (Ledger.Freeze f : ledger.freezes()) {
            frozen |=
                f.instance().equals(earlier.instance())
                    && f.from() <= later.start()
                    && f.to() >= earlier.start();
          }
        }
        boolean explained = killedAfter >= 0 || frozen;
        if (killedAfter >= 0 && !frozen && !later.recovery()) {
          Run earlier = copies.get(i - 1);
          long kill = earlier.start() + killedAfter;
          v.unflagged(
              later.key()
                  + " fire "
                  + Verdict.time(later.scheduled())
                  + ": run at "
                  + Verdict.time(earlier.start())
                  + " on "
                  + earlier.instance()
                  + ", killed "
                  + Verdict.ms(killedAfter)
                  + " later"
                  + (pausedAtKill(ledger, later.key(), kill) ? " (the job paused)" : "")
                  + "; run again at "
                  + Verdict.time(later.start())
                  + " on "
                  + later.instance()
                  + " without recovery()"
                  + callsAround(ledger, later.key(), later.scheduled(), later.start()));
        }
        String example =
            later.key()
                + " fire "
                + Verdict.time(later.scheduled())
                + ": runs at "
                + Verdict.time(copies.get(0).start())
                + " on "
                + copies.get(0).instance()
                + " and "
                + Verdict.time(later.start())
                + " on "
                + later.instance()
                + (later.recovery() ? " (recovery)" : "")
                + (killedAfter >= 0
                    ? "; killed " + Verdict.ms(killedAfter) + " after the first began"
                    : frozen ? "; the first one's instance was frozen (SIGSTOP) in between" : "");
        if (explained) {
          v.atLeastOnce(example);
        } else {
          v.duplicate(example + callsAround(ledger, later.key(), later.scheduled(), later.start()));
        }
      }
    }
  }

  /**
   * True if {@code key} was paused, or may have been, when its instance was killed at {@code kill}.
   * The calls on it that returned true before the kill are replayed in the order they returned: a
   * pause pauses, a resume or an unschedule unpauses, and a schedule unpauses only a job that an
   * unschedule had deleted (for a job that exists it is an upsert that keeps the stored state, a
   * pause included). A pause begun before the kill that never returned may have been stored, so it
   * counts as a pause. Shown with each unflagged re-run: before stop 49 a single instance could not
   * flag the re-run of a run that began or went on while its job was paused (a {@code triggerNow()}
   * of a paused job, a pause during the run).
   */
  private static boolean pausedAtKill(Ledger ledger, String key, long kill) {
    List<Call> done = new ArrayList<>();
    for (Call c : ledger.calls()) {
      if (!c.key().equals(key) || c.begin() > kill) {
        continue;
      }
      if (c.end() == Ledger.NEVER) {
        if (c.op() == Ledger.Op.PAUSE) {
          return true; // may have been stored before the kill
        }
      } else if (c.result() && c.end() <= kill) {
        done.add(c);
      }
    }
    done.sort(Comparator.comparingLong(Call::end));
    boolean exists = true;
    boolean paused = false;
    for (Call c : done) {
      switch (c.op()) {
        case PAUSE -> paused = true;
        case RESUME -> paused = false;
        case UNSCHEDULE -> {
          exists = false;
          paused = false;
        }
        case SCHEDULE -> {
          if (!exists) {
            exists = true;
            paused = false;
          }
        }
        default -> {}
      }
    }
    return exists && paused;
  }

  /**
   * The API calls on {@code key} and its runs that began from 2 s before {@code fire} to {@code
   * until}, with their times relative to the fire, so that a failed verdict in CI explains itself.
   */
  static String callsAround(Ledger ledger, String key, long fire, long until) {
    StringBuilder sb = new StringBuilder();
    List<Call> calls = new ArrayList<>(ledger.calls());
    calls.sort(Comparator.comparingLong(Call::begin)); // the ledger's order is not the calls'
    for (Call c : calls) {
      if (c.key().equals(key) && c.begin() >= fire - 2_000_000 && c.begin() <= until) {
        sb.append("\n        ")
            .append(c.op().name().toLowerCase())
            .append(" on ")
            .append(c.instance())
            .append(" ")
            .append(Verdict.ms(c.begin() - fire))
            .append(" .. ")
            .append(c.end() == Ledger.NEVER ? "never returned" : Verdict.ms(c.end() - fire))
            .append(" -> ")
            .append(c.result());
      }
    }
    List<Run> runs = new ArrayList<>(ledger.runs());
    runs.sort(Comparator.comparingLong(Run::start));
    for (Run r : runs) {
      if (r.key().equals(key) && r.start() >= fire - 2_000_000 && r.start() <= until) {
        sb.append("\n        run on ")
            .append(r.instance())
            .append(" of fire ")
            .append(Verdict.ms(r.scheduled() - fire))
            .append(" started ")
            .append(Verdict.ms(r.start() - fire))
            .append(r.recovery() ? " (recovery)" : "");
      }
    }
    return sb.length() == 0 ? "" : "\n      calls and runs of the key, relative to the fire:" + sb;
  }

  private void early(Ledger ledger, Map<String, Job> jobs, Verdict.Builder v) {
    long tolerance = TimeUnit.NANOSECONDS.toMicros(earlyTolerance.toNanos());
    for (Run r : ledger.runs()) {
      Job j = jobs.get(r.key());
      if (j != null && r.attempt() == 1 && j.isSlot(r.scheduled())) {
        long by = r.scheduled() - r.start();
        if (by > tolerance) {
          v.early(
              r.key()
                  + " fire "
                  + Verdict.time(r.scheduled())
                  + " ran "
                  + Verdict.ms(by)
                  + " early on "
                  + r.instance(),
              by);
        }
      }
    }
  }

  /**
   * A run that starts less than this after a pause returned is not judged. A run's start is the
   * earlier of the handler's first line and the engine's start: in cluster mode that is the claim,
   * by the database's clock (this machine's, here), which must precede the return of any pause it
   * overtakes; one instance reads it under the dispatcher's lock. The tolerance covers the two
   * clocks' reading granularity only. Runs found before the fixes of issue #10 started 100–400 ms
   * after the pause.
   */
  static final long CLOCK_TOLERANCE_MICROS = 2_000;

  private static void afterPause(Ledger ledger, LostCommits.Report lost, Verdict.Builder v) {
    Map<String, List<Call>> blockers = new HashMap<>();
    Map<String, List<Call>> licences = new HashMap<>();
    for (Call c : ledger.calls()) {
      boolean blocks = (c.op() == Op.PAUSE || c.op() == Op.UNSCHEDULE) && c.result();
      if (blocks && c.end() != Ledger.NEVER) {
        blockers.computeIfAbsent(c.key(), k -> new ArrayList<>()).add(c);
      } else if (c.op() == Op.RESUME || c.op() == Op.TRIGGER || c.op() == Op.SCHEDULE) {
        licences.computeIfAbsent(c.key(), k -> new ArrayList<>()).add(c);
      }
    }
    blockers.values().forEach(l -> l.sort(Comparator.comparingLong(Call::end)));
    licences.values().forEach(l -> l.sort(Comparator.comparingLong(Call::begin)));
    for (Run r : ledger.runs()) {
      List<Call> b = blockers.get(r.key());
      if (b == null) {
        continue;
      }
      long runStart = Math.min(r.start(), r.engineStart());
      Call blocker = lastEndingBefore(b, runStart - CLOCK_TOLERANCE_MICROS);
      if (blocker == null || licensed(licences.get(r.key()), blocker, runStart)) {
        continue;
      }
      long by = runStart - blocker.end();
      boolean here = Ledger.slotOf(blocker.instance()).equals(Ledger.slotOf(r.instance()));
      Optional<LostCommits.Loss> loss = lostCommit(lost, blocker, r);
      if (loss.isPresent()) {
        LostCommits.Loss l = loss.get();
        v.afterPauseLost(
            r.key()
                + " fire "
                + Verdict.time(r.scheduled())
                + " ran on "
                + r.instance()
                + " "
                + Verdict.ms(by)
                + " after "
                + blocker.op().name().toLowerCase()
                + "() returned on "
                + blocker.instance()
                + ", whose commit "
                + l.next()
                + " did not find (it read version "
                + l.read()
                + ")",
            by);
        continue;
      }
      v.afterPause(
          here,
          r.key()
              + " fire "
              + Verdict.time(r.scheduled())
              + " started "
              + Verdict.ms(by)
              + " after "
              + blocker.op().name().toLowerCase()
              + "() returned at "
              + Verdict.time(blocker.end())
              + " on "
              + blocker.instance()
              + " (run on "
              + r.instance()
              + ")",
          by);
    }
  }

  /** Tolerance (ms) between a call's ledger times and its commit's log line. */
  private static final int LOG_TOLERANCE_MS = 2;

  /**
   * The loss, at the kill of {@code blocker}'s instance, of a commit of the job that instance
   * logged while {@code blocker} ran, if the run came from a later instance of that slot.
   */
  private static Optional<LostCommits.Loss> lostCommit(
      LostCommits.Report lost, Call blocker, Run r) {
    if (lost == null || r.instance().equals(blocker.instance())) {
      return Optional.empty();
    }
    int from = msOfDay(blocker.begin()) - LOG_TOLERANCE_MS;
    int to = msOfDay(blocker.end()) + LOG_TOLERANCE_MS;
    return lost.loss(blocker.instance(), r.key()).filter(l -> l.lostBetween(from, to));
  }

  /** The local time of day, in ms, of {@code micros} since the epoch: the children's log clock. */
  private static int msOfDay(long micros) {
    return (int)
        (Instant.EPOCH
                .plus(micros, ChronoUnit.MICROS)
                .atZone(ZoneId.systemDefault())
                .toLocalTime()
                .toNanoOfDay()
            / 1_000_000);
  }

  /** The call of {@code sortedByEnd} that returned last before {@code t}, or null. */
  private static Call lastEndingBefore(List<Call> sortedByEnd, long t) {
    int lo = 0;
    int hi = sortedByEnd.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sortedByEnd.get(mid).end() < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo == 0 ? null : sortedByEnd.get(lo - 1);
  }

  /**
   * True if a call that may undo {@code blocker} began before {@code t} and ended after it began.
   */
  private static boolean licensed(List<Call> sortedByBegin, Call blocker, long t) {
    if (sortedByBegin == null) {
      return false;
    }
    int lo = 0;
    int hi = sortedByBegin.size();
    while (lo < hi) { // the first call that began at or after t
      int mid = (lo + hi) >>> 1;
      if (sortedByBegin.get(mid).begin() < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (int i = lo - 1; i >= 0; i--) {
      Call c = sortedByBegin.get(i);
      if (c.end() > blocker.begin()) {
        return true;
      }
      if (c.begin() < blocker.begin() - LONGEST_CALL) {
        return false;
      }
    }
    return false;
  }

  private void slots(Ledger ledger, Job j, Verdict.Builder v) {
    long horizon = ledger.horizon();
    if (horizon == Ledger.NEVER) { // a run cut short: up to its last recorded run
      horizon = ledger.runs().stream().mapToLong(Run::start).max().orElse(j.first());
    }
    long cutoff = horizon - TimeUnit.NANOSECONDS.toMicros(margin.toNanos());
    Map<Long, Long> ran = new HashMap<>(); // slot -> earliest real start
    Set<Long> madeUp = new HashSet<>();
    TreeSet<Long> coalesced = new TreeSet<>();
    for (Run r : ledger.runs()) {
      if (r.key().equals(j.key()) && j.isSlot(r.scheduled())) {
        ran.merge(r.scheduled(), r.start(), Math::min);
        if (r.missed() > 0 && j.policy() == Policy.CATCH_UP) {
          madeUp.add(r.scheduled());
        }
        for (int k = 1; k < r.missed() && j.policy() == Policy.FIRE_ONCE; k++) {
          coalesced.add(r.scheduled() - k * j.period());
        }
      }
    }
    long last = ran.keySet().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
    Verdict.Slots s = new Verdict.Slots(j.key(), j.policy());
    List<Long> gap = new ArrayList<>(); // missing slots since the last one that ran
    for (long t = j.first(); t <= cutoff; t += j.period()) {
      s.expected++;
      if (t > last) {
        s.behind++;
        v.behind(j.key() + " (" + j.policy() + ") slot " + Verdict.time(t) + " not run yet");
      } else if (ran.containsKey(t)) {
        s.ran++;
        s.madeUp += madeUp.contains(t) ? 1 : 0;
        closeGap(j, gap, ran.get(t), s, v);
      } else if (coalesced.contains(t)) {
        s.coalesced++;
      } else {
        gap.add(t);
      }
    }
    closeGap(j, gap, Long.MAX_VALUE, s, v);
    v.slots(s);
  }

  /** Judges a gap of missing slots ended by a run that started at {@code next}. */
  private static void closeGap(
      Job j, List<Long> gap, long next, Verdict.Slots s, Verdict.Builder v) {
    if (gap.isEmpty()) {
      return;
    }
    if (j.policy() == Policy.SKIP && next != Long.MAX_VALUE && next - gap.get(0) > j.threshold()) {
      s.skipped += gap.size();
    } else {
      for (long t : gap) {
        s.missing++;
        v.missing(j.key() + " (" + j.policy() + ") slot " + Verdict.time(t) + " never ran");
      }
    }
    gap.clear();
  }

  private static void lateness(Ledger ledger, Map<String, Job> jobs, Verdict.Builder v) {
    for (Run r : ledger.runs()) {
      Job j = jobs.get(r.key());
      if (j != null
          && r.attempt() == 1
          && r.missed() == 0
          && !r.recovery()
          && j.isSlot(r.scheduled())) {
        v.lateness(r.start() - r.scheduled());
      }
    }
  }
}
