package dev.kairos.engine;

import dev.kairos.JobState;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A job store in memory: nothing survives the process. For tests, and for applications whose jobs
 * are all re-created at start. Thread-safe; answers window queries from an index ordered by (due
 * time, key), like the JDBC store's.
 */
public final class InMemoryStore implements JobStore {
  /** Default number of runs kept per job in the history. */
  public static final int DEFAULT_HISTORY_PER_JOB = 100;

  private final Map<String, JobRecord> jobs = new TreeMap<>();
  private final NavigableSet<WindowCursor> byDue = new TreeSet<>();
  private final Map<String, Deque<RunRecord>> history = new HashMap<>();
  private final int historyPerJob;
  private final boolean keepCompleted;

  /** A store keeping completed one-shot jobs and the last 100 runs per job. */
  public InMemoryStore() {
    this(DEFAULT_HISTORY_PER_JOB, true);
  }

  /**
   * @param historyPerJob runs kept per job (0 keeps none)
   * @param keepCompleted whether a completed one-shot job stays (state COMPLETE) or is deleted
   */
  public InMemoryStore(int historyPerJob, boolean keepCompleted) {
    if (historyPerJob < 0) {
      throw new IllegalArgumentException("history per job must not be negative: " + historyPerJob);
    }
    this.historyPerJob = historyPerJob;
    this.keepCompleted = keepCompleted;
  }

  @Override
  public synchronized Upsert upsert(JobRecord fresh) {
    JobRecord old = jobs.get(fresh.key());
    if (old == null) {
      put(fresh.withVersion(0));
      return new Upsert(jobs.get(fresh.key()), Upsert.Change.CREATED);
    }
    if (old.spec().equals(fresh.spec())) {
      return new Upsert(old, Upsert.Change.UNCHANGED);
    }
    JobRecord updated =
        new JobRecord(
            fresh.spec(),
            fresh.state(),
            fresh.nextFireTime(),
            fresh.dueTime(),
            fresh.dueKind(),
            fresh.attempt(),
            old.lastScheduledFireTime(),
            old.lastStart(),
            old.lastEnd(),
            old.lastOutcome(),
            old.lastError(),
            old.runCount(),
            old.failureCount(),
            old.version() + 1);
    put(updated);
    return new Upsert(updated, Upsert.Change.UPDATED);
  }

  @Override
  public synchronized Optional<JobRecord> find(String key) {
    return Optional.ofNullable(jobs.get(key));
  }

  @Override
  public synchronized List<JobRecord> findAll() {
    return List.copyOf(jobs.values());
  }

  @Override
  public synchronized Optional<JobRecord> replace(JobRecord updated, long expectedVersion) {
    JobRecord old = jobs.get(updated.key());
    if (old == null || old.version() != expectedVersion) {
      return Optional.empty();
    }
    JobRecord r =
        new JobRecord(
            updated.spec(),
            updated.state(),
            updated.nextFireTime(),
            updated.dueTime(),
            updated.dueKind(),
            updated.attempt(),
            old.lastScheduledFireTime(),
            old.lastStart(),
            old.lastEnd(),
            old.lastOutcome(),
            old.lastError(),
            old.runCount(),
            old.failureCount(),
            expectedVersion + 1);
    put(r);
    return Optional.of(r);
  }

  @Override
  public synchronized boolean delete(String key) {
    JobRecord old = jobs.remove(key);
    if (old != null && old.dueTime() != null) {
      byDue.remove(old.cursor());
    }
    history.remove(key);
    return old != null;
  }

  @Override
  public synchronized List<JobRecord> due(WindowCursor after, Instant before, int limit) {
    NavigableSet<WindowCursor> tail = after == null ? byDue : byDue.tailSet(after, false);
    List<JobRecord> out = new ArrayList<>();
    for (WindowCursor c : tail) {
      if (out.size() >= limit || !c.dueTime().isBefore(before)) {
        break;
      }
      out.add(jobs.get(c.key()));
    }
    return out;
  }

  @Override
  public synchronized void runStarted(
      String key, Instant scheduledFireTime, Instant start, String instance) {
    JobRecord r = jobs.get(key);
    if (r == null) {
      return;
    }
    JobState s = r.state() == JobState.SCHEDULED ? JobState.RUNNING : r.state();
    put(
        new JobRecord(
            r.spec(),
            s,
            r.nextFireTime(),
            r.dueTime(),
            r.dueKind(),
            r.attempt(),
            r.lastScheduledFireTime(),
            start,
            r.lastEnd(),
            r.lastOutcome(),
            r.lastError(),
            r.runCount(),
            r.failureCount(),
            r.version()));
  }

  @Override
  public synchronized Optional<JobRecord> runFinished(RunResult x) {
    JobRecord r = jobs.get(x.key());
    if (r == null) {
      return Optional.empty();
    }
    appendHistory(x);
    boolean failed = x.outcome() != RunOutcome.SUCCESS;
    boolean current = r.version() == x.expectedVersion();
    JobState state =
        current ? x.state() : r.state() == JobState.RUNNING ? JobState.SCHEDULED : r.state();
    JobRecord updated =
        new JobRecord(
            r.spec(),
            state,
            current ? x.nextFireTime() : r.nextFireTime(),
            current ? x.dueTime() : r.dueTime(),
            current ? x.dueKind() : r.dueKind(),
            current ? x.nextAttempt() : r.attempt(),
            x.scheduledFireTime(),
            x.start(),
            x.end(),
            x.outcome(),
            failed ? x.error() : null,
            r.runCount() + 1,
            r.failureCount() + (failed ? 1 : 0),
            current ? r.version() + 1 : r.version());
    if (updated.state() == JobState.COMPLETE && !keepCompleted) {
      delete(x.key());
      return Optional.empty();
    }
    put(updated);
    return Optional.of(updated);
  }

  private void appendHistory(RunResult x) {
    if (historyPerJob == 0) {
      return;
    }
    Deque<RunRecord> runs = history.computeIfAbsent(x.key(), k -> new ArrayDeque<>());
    runs.addFirst(
        new RunRecord(
            x.key(),
            x.scheduledFireTime(),
            x.start(),
            x.end(),
            x.outcome(),
            x.error(),
            x.attempt(),
            x.instance()));
    while (runs.size() > historyPerJob) {
      runs.removeLast();
    }
  }

  @Override
  public synchronized List<RunRecord> history(String key, int limit) {
    Deque<RunRecord> runs = history.get(key);
    return runs == null ? List.of() : runs.stream().limit(limit).toList();
  }

  /** Call only while synchronized. Stores r and keeps the due index in step. */
  private void put(JobRecord r) {
    JobRecord old = jobs.put(r.key(), r);
    if (old != null && old.dueTime() != null) {
      byDue.remove(old.cursor());
    }
    if (r.dueTime() != null) {
      byDue.add(r.cursor());
    }
  }

  @Override
  public String toString() {
    return "InMemoryStore";
  }
}
