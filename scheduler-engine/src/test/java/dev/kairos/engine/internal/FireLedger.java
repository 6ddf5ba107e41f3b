package dev.kairos.engine.internal;

import dev.kairos.Job;
import dev.kairos.JobContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler for the cluster stress tests: counts the runs of each fire (key and scheduled time) and
 * of each job, on whichever instance, and the runs of one job that overlapped.
 */
final class FireLedger implements Job {
  private final Map<String, AtomicInteger> byFire = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> byKey = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final AtomicInteger overlaps = new AtomicInteger();

  @Override
  public void run(JobContext ctx) {
    AtomicInteger mine = inFlight.computeIfAbsent(ctx.key(), k -> new AtomicInteger());
    if (mine.incrementAndGet() > 1) {
      overlaps.incrementAndGet();
    }
    byFire
        .computeIfAbsent(ctx.key() + "@" + ctx.scheduledFireTime(), k -> new AtomicInteger())
        .incrementAndGet();
    byKey.computeIfAbsent(ctx.key(), k -> new AtomicInteger()).incrementAndGet();
    mine.decrementAndGet();
  }

  /** Runs of the job {@code key} so far. */
  int runs(String key) {
    AtomicInteger n = byKey.get(key);
    return n == null ? 0 : n.get();
  }

  /** How many jobs whose key starts with {@code prefix} have run at least once. */
  long jobsRun(String prefix) {
    return byKey.keySet().stream().filter(k -> k.startsWith(prefix)).count();
  }

  /** Runs that began while another run of the same job was going. */
  int overlaps() {
    return overlaps.get();
  }

  /** The fires (key@time) that ran more than once. */
  List<String> firesRunTwice() {
    return byFire.entrySet().stream()
        .filter(e -> e.getValue().get() > 1)
        .map(Map.Entry::getKey)
        .toList();
  }
}
