package dev.kairos.benchmarks.soak;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.benchmarks.soak.Ledger.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The soak's jobs, the same in the parent (which creates them and writes their {@code JOB} lines)
 * and in every child (which upserts the steady ones at start, as an application would, and whose
 * API threads schedule the race ones): fixed rate {@code period} from {@code first}, handler
 * {@value #HANDLER}. Steady jobs rotate through catch-up, fire-once and skip (threshold 5 s, so a
 * busy moment is not taken for an outage); race jobs fire once.
 */
record SoakJobs(Duration period, Instant first, int steady, int race) {
  static final String HANDLER = "soak";

  /** The misfire threshold of the skip jobs. */
  static final Duration SKIP_THRESHOLD = Duration.ofSeconds(5);

  /** Keys and policies of all jobs, steady ones first. */
  List<Ledger.Job> all() {
    List<Ledger.Job> jobs = new ArrayList<>();
    long p = LedgerFile.micros(Instant.EPOCH.plus(period));
    long f = LedgerFile.micros(first);
    Policy[] policies = Policy.values();
    for (int i = 0; i < steady; i++) {
      Policy policy = policies[i % 3];
      jobs.add(
          new Ledger.Job(String.format("steady-%02d", i), p, f, policy, true, threshold(policy)));
    }
    for (int i = 0; i < race; i++) {
      jobs.add(
          new Ledger.Job(
              String.format("race-%02d", i),
              p,
              f,
              Policy.FIRE_ONCE,
              false,
              threshold(Policy.FIRE_ONCE)));
    }
    return jobs;
  }

  /** The misfire threshold of a policy, in µs: 5 s for skip, the default for the others. */
  static long threshold(Policy policy) {
    Duration t = policy == Policy.SKIP ? SKIP_THRESHOLD : Misfire.DEFAULT_THRESHOLD;
    return t.toNanos() / 1_000;
  }

  /** The spec of one job. */
  JobSpec spec(Ledger.Job job) {
    Misfire misfire =
        switch (job.policy()) {
          case CATCH_UP -> Misfire.catchUp();
          case FIRE_ONCE -> Misfire.fireOnce();
          case SKIP -> Misfire.skip().threshold(SKIP_THRESHOLD);
        };
    return JobSpec.named(job.key())
        .handler(HANDLER)
        .fixedRate(period)
        .startAt(first)
        .misfire(misfire);
  }

  /**
   * How long one run of {@code key} takes: steady jobs 5–30 ms, 2 % of them 1.2 s (overruns); race
   * jobs 0–50 ms, 10 % of them 1.5 s, so that pause, resume and triggers land during runs.
   */
  static Duration runTime(String key) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    if (key.startsWith("race")) {
      return Duration.ofMillis(r.nextInt(100) < 10 ? 1_500 : r.nextInt(50));
    }
    return Duration.ofMillis(r.nextInt(100) < 2 ? 1_200 : 5 + r.nextInt(25));
  }
}
