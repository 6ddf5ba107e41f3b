package dev.kairos.jdbc;

import dev.kairos.JobState;
import dev.kairos.RunRecord;
import dev.kairos.StoreException;
import dev.kairos.UnreadableJob;
import dev.kairos.UnreadableJobException;
import dev.kairos.jdbc.internal.ChangeFeed;
import dev.kairos.jdbc.internal.Cluster;
import dev.kairos.jdbc.internal.ConnectionSource;
import dev.kairos.jdbc.internal.Database;
import dev.kairos.jdbc.internal.Dialect;
import dev.kairos.jdbc.internal.GroupCommit;
import dev.kairos.jdbc.internal.JobRows;
import dev.kairos.jdbc.internal.JobTable;
import dev.kairos.jdbc.internal.Migrations;
import dev.kairos.jdbc.internal.RunTable;
import dev.kairos.jdbc.internal.StartMarks;
import dev.kairos.jdbc.internal.StoreSettings;
import dev.kairos.jdbc.internal.WriteBack;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.StartMark;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job store in a relational database: an embedded H2 file, PostgreSQL or MariaDB. Jobs, their
 * schedule state and their run history survive restarts and crashes: every method that returned has
 * committed its change.
 *
 * <pre>{@code
 * JobStore store = JdbcStore.h2(Path.of("data"));        // embedded, pool made and closed here
 * JobStore store = JdbcStore.of(dataSource);              // your pool; never closed by the store
 * JobStore store = JdbcStore.builder()
 *     .url("jdbc:postgresql://db/app").user("app").password(secret)
 *     .tablePrefix("kairos_").historyPerJob(50).keepCompleted(false)
 *     .clustered(true)                                     // several instances share it
 *     .build();
 * }</pre>
 *
 * <p>Tables ({@code <prefix>jobs}, {@code <prefix>runs}, {@code <prefix>schema_version}, and for
 * cluster mode {@code <prefix>instances}, {@code <prefix>deleted_jobs}) are created or upgraded by
 * {@link #open()}, unless {@link Builder#createSchema(boolean) createSchema(false)}: the DDL ships
 * as {@code dev/kairos/jdbc/{h2,postgresql}/V<n>__*.sql}.
 *
 * <p>A row that does not map to a job (edited by hand, say, to an unknown schedule kind), or maps
 * to one that breaks {@link JobRules} (a zero period, a retry without its fire time, a key with a
 * NUL, ...), is <em>unreadable</em>: logged at WARN once and skipped by {@link #due} and {@link
 * #findAll}; {@link #find} throws an {@link UnreadableJobException} naming its key; {@link
 * #unreadable()} lists it. The store never deletes or rewrites such a row by itself; {@link
 * #upsert} of its key replaces its definition, {@link #delete} deletes it.
 *
 * <p>Several scheduler instances (processes) can share one PostgreSQL or MariaDB database in
 * <b>cluster mode</b>, {@link Builder#clustered(boolean) clustered(true)}: each fire is claimed
 * before it runs, so it runs on one live instance; a fire whose instance died is re-run elsewhere
 * once its lease expires; changes made through any instance reach the others through a change feed
 * and LISTEN/NOTIFY (PostgreSQL; MariaDB is polled). Leases and liveness are judged by the
 * database's clock. Every instance sharing the tables must be clustered.
 */
public final class JdbcStore implements ClusterStore {
  /*
   * Design notes.
   *
   * The semantics are those of InMemoryStore, whose synchronized methods become transactions
   * here: each read-modify-write method locks the job's row (SELECT ... FOR UPDATE), computes
   * the new record in Java exactly as InMemoryStore does, and writes it back before committing.
   * So two instances over one database serialize per job, and the version column, bumped by
   * every change of definition or schedule state, is what replace() and runFinished() compare.
   *
   * due() is a keyset query on the (due_time, job_key) index. It must return `limit` readable
   * rows whenever that many exist before `before`: the engine takes a short page for the end of
   * the window. So when it skips unreadable rows it reads on from the last row it saw.
   *
   * runFinished() recognises a repeat of a write-back it already committed (see isRepeat): over
   * a network, a commit can succeed while its acknowledgement is lost, and the engine retries.
   *
   * History is trimmed in runFinished() every TRIM_INTERVAL runs of a job, not on every run;
   * history() reads at most historyPerJob rows, so the count limit is exact anyway.
   *
   * Cluster mode lives in internal.Cluster (ClusterTable, ChangeFeed and ChangeSignal hold the SQL,
   * the feed and the notifications, with their reasoning). The feed is kept in every mode: each
   * write of a job row stamps it, each deletion leaves a tombstone, so that a plain store (an
   * administration tool, say) may schedule jobs that clustered instances then learn about. Only
   * notifications and claims are cluster mode's own.
   *
   * The statements depend on the dialect, known once the database is open: tables() builds them
   * on first use.
   */

  /** Default prefix of the table names. */
  public static final String DEFAULT_TABLE_PREFIX = "kairos_";

  /** Default number of runs kept per job in the history, as in {@code InMemoryStore}. */
  public static final int DEFAULT_HISTORY_PER_JOB = 100;

  /** Default size of the connection pool the store makes for a URL or an H2 folder. */
  public static final int DEFAULT_POOL_SIZE = 8;

  /**
   * Default start-mark delay: zero, every run is marked RUNNING before its job runs (sharing a
   * commit with other marks and write-backs), so a fire cut short by a crash, however early, is
   * re-run flagged {@code recovery()}.
   */
  public static final Duration DEFAULT_START_MARK_DELAY = Duration.ZERO;

  /** A job's history is trimmed after every this many of its runs. */
  static final int TRIM_INTERVAL = 10;

  private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,30}");
  private static final String UNIQUE_VIOLATION = "23505";
  private static final int MARIADB_DUPLICATE_KEY = 1062;

  private final Database database;
  private final ConnectionSource source;
  private final StoreSettings settings;
  private final RunTable runs;

  /** The dialect's statements, built on first use. */
  private volatile Tables tables;

  /** Keys of unreadable rows already logged; each is logged once per store. */
  private final Set<String> warnedRows = ConcurrentHashMap.newKeySet();

  /**
   * Start marks ({@link StartMarks.Mark}) and write-backs ({@link RunResult}): those that arrive
   * together are committed together, several such transactions in flight at once.
   */
  private final GroupCommit<Object, Optional<JobRecord>> commits;

  /** See {@link Builder#startMarkDelay}. */
  private final Duration startMarkDelay;

  /** Start marks, written only for runs still going after the start-mark delay. */
  private final StartMarks startMarks;

  /** The statements of one dialect, and the cluster side of the store. */
  private record Tables(JobTable jobs, Cluster cluster) {}

  private JdbcStore(ConnectionSource source, StoreSettings settings, Duration startMarkDelay) {
    this.startMarkDelay = startMarkDelay;
    this.database = new Database(source, settings.tablePrefix(), settings.createSchema());
    this.source = source;
    this.settings = settings;
    this.runs = new RunTable(settings.tablePrefix());
    this.commits = new GroupCommit<>(JdbcStore::keyOf, GroupCommit.lanesFor(source.poolSize()));
    this.startMarks =
        new StartMarks(
            startMarkDelay,
            marks -> {
              if (marks.size() == 1) {
                commit(marks.get(0)); // at the start of a run: shares a commit with others
                return;
              }
              database.inTransaction(
                  "marking " + marks.size() + " run(s) started",
                  h -> {
                    tables().jobs().runsStarted(h, marks);
                    return null;
                  });
            });
  }

  /**
   * A store in an embedded H2 database file {@code kairos.mv.db} in {@code dir} (created if
   * needed), with a pool of {@value #DEFAULT_POOL_SIZE} connections that {@link #close()} closes.
   * Commits are written to the file before they return (H2's WRITE_DELAY is 0), so a crash of the
   * process loses nothing that returned.
   *
   * @param dir the folder holding the database file
   * @return the store, not yet open
   */
  public static JdbcStore h2(Path dir) {
    return builder().h2(dir).build();
  }

  /**
   * A store over the user's data source, H2, PostgreSQL or MariaDB (detected at {@link #open()}),
   * which the store never closes.
   *
   * @param dataSource the database to use, left open by the store
   * @return the store, not yet open
   */
  public static JdbcStore of(DataSource dataSource) {
    return builder().dataSource(dataSource).build();
  }

  /**
   * A builder with the defaults above: prefix "kairos_", schema created, completed jobs kept.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  // ---- life cycle ----------------------------------------------------------------------------

  /**
   * Opens the pool, detects the dialect, and creates or upgrades the tables (or, with {@code
   * createSchema(false)}, checks that they exist at the right version). Idempotent; the first use
   * of any other method opens the store too.
   *
   * @throws StoreException if the database is unreachable, unsupported or its tables unfit
   */
  @Override
  public void open() {
    database.open();
    Tables t = tables();
    log.info(
        "job store opened: {}, schema version {}, {}",
        this,
        Migrations.latest(),
        settings.clustered()
            ? "cluster mode, changes signalled by " + t.cluster()
            : "single instance");
  }

  /** The statements, built once the database is open (which the first call does). */
  private Tables tables() {
    Tables t = tables;
    if (t != null) {
      return t;
    }
    synchronized (this) {
      if (tables == null) {
        Dialect d = database.dialect();
        Cluster cluster =
            Cluster.of(database, source, settings, this::readable, Builder::isEmbeddedH2);
        tables = new Tables(new JobTable(settings.tablePrefix(), d), cluster);
      }
      return tables;
    }
  }

  /**
   * Closes the pool the store made, if any (never a user's data source), and in cluster mode the
   * connection listening for changes. Idempotent.
   */
  @Override
  public void close() {
    startMarks.close();
    Tables t = tables;
    if (t != null) {
      t.cluster().close();
    }
    database.close();
  }

  // ---- jobs ----------------------------------------------------------------------------------

  @Override
  public Upsert upsert(JobRecord fresh) {
    String what = "upserting job '" + fresh.key() + "'";
    Upsert u;
    try {
      u = database.inTransaction(what, h -> upsert(h, fresh));
    } catch (StoreException e) {
      if (!isUniqueViolation(e)) {
        throw e;
      }
      // Another instance inserted the key between our SELECT and INSERT: it is an update now.
      log.debug("job '{}': inserted concurrently; upserting again", fresh.key());
      u = database.inTransaction(what, h -> upsert(h, fresh));
    }
    if (u.change() != Upsert.Change.UNCHANGED) {
      signal();
    }
    return u;
  }

  private Upsert upsert(Handle h, JobRecord fresh) {
    JobTable jobs = tables().jobs();
    Optional<JobRows.Row> old = jobs.find(h, fresh.key(), true);
    if (old.isEmpty()) {
      JobRecord created = fresh.withVersion(JobRecord.firstVersion());
      jobs.insert(h, created);
      return new Upsert(WriteBack.trimmed(created), Upsert.Change.CREATED);
    }
    JobRows.Row row = old.get();
    if (row.readable() && row.record().spec().equals(fresh.spec())) {
      return new Upsert(row.record(), Upsert.Change.UNCHANGED);
    }
    jobs.updateDefinition(h, fresh.withVersion(row.version() + 1));
    return new Upsert(reread(h, fresh.key()), Upsert.Change.UPDATED);
  }

  @Override
  public Optional<JobRecord> find(String key) {
    JobTable jobs = tables().jobs();
    return database
        .withHandle("reading job '" + key + "'", h -> jobs.find(h, key, false))
        .map(row -> readableOrThrow(row));
  }

  @Override
  public List<JobRecord> findAll() {
    return readableOnly(database.withHandle("reading all jobs", tables().jobs()::findAll));
  }

  /**
   * The rows of the jobs table that do not map to a job (edited by hand, say), by key, each with
   * the reason; {@link #findAll} skips them and {@link #find} throws. For administration tools (the
   * CLI's {@code doctor}); the rows are left as they are.
   *
   * @return the reason each unreadable row cannot be read, by job key, sorted; empty if none
   */
  public Map<String, String> unreadableJobs() {
    Map<String, String> out = new java.util.TreeMap<>();
    for (JobRows.Row row : database.withHandle("reading all jobs", tables().jobs()::findAll)) {
      if (!row.readable()) {
        out.put(row.key(), row.problem());
      }
    }
    return out;
  }

  /**
   * The schema version this code creates and works with; {@link #open()} upgrades older tables to
   * it and refuses newer ones.
   *
   * @return the schema version of this code
   */
  public static int schemaVersion() {
    return Migrations.latest();
  }

  @Override
  public Optional<JobRecord> replace(JobRecord updated, long expectedVersion) {
    JobTable jobs = tables().jobs();
    Optional<JobRecord> stored =
        database.inTransaction(
            "replacing job '" + updated.key() + "' at version " + expectedVersion,
            h ->
                jobs.replace(h, updated, expectedVersion)
                    ? Optional.of(reread(h, updated.key()))
                    : Optional.empty());
    stored.ifPresent(r -> signal());
    return stored;
  }

  @Override
  public boolean delete(String key) {
    boolean deleted = database.inTransaction("deleting job '" + key + "'", h -> delete(h, key));
    if (deleted) {
      signal();
    }
    return deleted;
  }

  /** Deletes the job and its history, leaving a tombstone for the change feed. */
  private boolean delete(Handle h, String key) {
    runs.deleteAll(h, key);
    boolean deleted = tables().jobs().delete(h, key);
    if (deleted) {
      tables().cluster().deleted(h, key);
    }
    return deleted;
  }

  // ---- bulk writes ---------------------------------------------------------------------------

  /**
   * {@link #upsert} of each record in one transaction: the existing rows read and locked with one
   * query per 1,000 keys, changed definitions updated in one batch, new jobs inserted in one batch.
   * Keep batches to about a thousand records (the engine does): the change feed assumes that a
   * transaction commits well within {@link ChangeFeed#SETTLE} of stamping its rows.
   */
  @Override
  public List<Upsert> upsertAll(List<JobRecord> fresh) {
    if (fresh.isEmpty()) {
      return List.of();
    }
    String what = "upserting " + fresh.size() + " job(s) from '" + fresh.get(0).key() + "'";
    List<Upsert> out;
    try {
      out = database.inTransaction(what, h -> upsertAll(h, fresh));
    } catch (StoreException e) {
      if (!isUniqueViolation(e)) {
        throw e;
      }
      // Another instance inserted one of the keys between our SELECT and INSERT: upsert again.
      log.debug("{}: a key was inserted concurrently; upserting again", what);
      out = database.inTransaction(what, h -> upsertAll(h, fresh));
    }
    if (out.stream().anyMatch(u -> u.change() != Upsert.Change.UNCHANGED)) {
      signal();
    }
    return out;
  }

  private List<Upsert> upsertAll(Handle h, List<JobRecord> fresh) {
    JobTable jobs = tables().jobs();
    List<String> keys = fresh.stream().map(JobRecord::key).toList();
    Map<String, JobRows.Row> old = new HashMap<>();
    for (JobRows.Row row : jobs.findAll(h, keys, true)) {
      old.put(row.key(), row);
    }
    Upsert[] out = new Upsert[fresh.size()];
    List<JobRecord> created = new ArrayList<>();
    List<JobRecord> updated = new ArrayList<>();
    for (int i = 0; i < out.length; i++) {
      JobRecord r = fresh.get(i);
      JobRows.Row row = old.get(r.key());
      if (row == null) {
        JobRecord c = r.withVersion(JobRecord.firstVersion());
        created.add(c);
        out[i] = new Upsert(WriteBack.trimmed(c), Upsert.Change.CREATED);
      } else if (row.readable() && row.record().spec().equals(r.spec())) {
        out[i] = new Upsert(row.record(), Upsert.Change.UNCHANGED);
      } else {
        updated.add(r.withVersion(row.version() + 1));
      }
    }
    if (!updated.isEmpty()) {
      jobs.updateDefinitions(h, updated);
      Map<String, JobRecord> stored = new HashMap<>();
      for (JobRows.Row row :
          jobs.findAll(h, updated.stream().map(JobRecord::key).toList(), false)) {
        stored.put(row.key(), readableOrThrow(row));
      }
      for (int i = 0; i < out.length; i++) {
        if (out[i] == null) {
          out[i] = new Upsert(stored.get(fresh.get(i).key()), Upsert.Change.UPDATED);
        }
      }
    }
    jobs.insertAll(h, created); // last: its sequence values are taken just before the commit
    return List.of(out);
  }

  /** {@link #delete} of each key in one transaction: rows, their history and tombstones. */
  @Override
  public List<String> deleteAll(Collection<String> keys) {
    if (keys.isEmpty()) {
      return List.of();
    }
    List<String> distinct = List.copyOf(new LinkedHashSet<>(keys));
    List<String> deleted =
        database.inTransaction(
            "deleting " + distinct.size() + " job(s) from '" + distinct.get(0) + "'",
            h -> {
              List<String> gone = tables().jobs().deleteAll(h, distinct);
              if (!gone.isEmpty()) {
                runs.deleteAll(h, gone);
                tables().cluster().deletedAll(h, gone);
              }
              return gone;
            });
    if (!deleted.isEmpty()) {
      signal();
    }
    return deleted;
  }

  @Override
  public List<JobRecord> due(WindowCursor after, Instant before, int limit) {
    JobTable jobs = tables().jobs();
    return database.withHandle(
        "reading jobs due before " + before + " after " + after,
        h -> {
          List<JobRecord> out = new ArrayList<>();
          WindowCursor cursor = after;
          while (out.size() < limit) {
            int wanted = limit - out.size();
            List<JobRows.Row> page = jobs.due(h, cursor, before, wanted);
            for (JobRows.Row row : page) {
              cursor = row.cursor();
              readable(row).ifPresent(out::add);
            }
            if (page.size() < wanted) {
              break;
            }
          }
          return out;
        });
  }

  /** Reads every row; lists those that do not map to a job or break {@link JobRules}. */
  @Override
  public List<UnreadableJob> unreadable() {
    List<JobRows.Row> rows =
        database.withHandle("reading all jobs for unreadable rows", tables().jobs()::findAll);
    List<UnreadableJob> out = new ArrayList<>();
    for (JobRows.Row row : rows) {
      if (!row.readable()) {
        readable(row); // logs it once
        out.add(new UnreadableJob(row.key(), row.problem()));
      }
    }
    return out;
  }

  // ---- runs ----------------------------------------------------------------------------------

  /** Marks the start synchronously: state RUNNING (if SCHEDULED) and last start; same version. */
  @Override
  public void runStarted(String key, Instant scheduledFireTime, Instant start, String instance) {
    startMarks.started(key, start);
  }

  @Override
  public Optional<JobRecord> runFinished(RunResult x) {
    startMarks.finished(x.key());
    Optional<JobRecord> stored = commit(x);
    signal();
    return stored;
  }

  /** True: runs are written in batches (see {@link #runsFinished}, {@link #runsStarted}). */
  @Override
  public boolean batchesRuns() {
    return true;
  }

  /**
   * Marks the runs in one transaction; with a positive {@link Builder#startMarkDelay} instead each
   * is marked only if its write-back has not come within the delay (counted from this call), as
   * {@link #runStarted} does.
   */
  @Override
  public void runsStarted(List<StartMark> marks) {
    if (startMarkDelay.isZero()) {
      markRunning(marks, true);
      return;
    }
    Instant now = Instant.now();
    for (StartMark m : marks) {
      startMarks.started(m.key(), now);
    }
  }

  @Override
  public void runsNotStarted(List<StartMark> marks) {
    markRunning(marks, false);
  }

  private void markRunning(List<StartMark> marks, boolean running) {
    if (marks.isEmpty()) {
      return;
    }
    List<StartMark> sorted = new ArrayList<>(marks);
    sorted.sort(Comparator.comparing(StartMark::key)); // rows locked in key order
    database.inTransaction(
        (running ? "marking " : "unmarking ") + marks.size() + " run(s) as started",
        h -> {
          tables().jobs().markRunning(h, sorted, running);
          return null;
        });
  }

  /**
   * Writes the runs back in one transaction, rows locked in key order; all or none. The engine
   * retries a failed batch one run at a time ({@link #runFinished}), which recognises a run this
   * batch wrote already (see {@link WriteBack#isRepeat}).
   */
  @Override
  public List<Optional<JobRecord>> runsFinished(List<RunResult> results) {
    if (results.isEmpty()) {
      return List.of();
    }
    Integer[] order = new Integer[results.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
      startMarks.finished(results.get(i).key());
    }
    Arrays.sort(order, Comparator.comparing(i -> results.get(i).key()));
    List<Optional<JobRecord>> out =
        database.inTransaction(
            "writing back " + results.size() + " run(s)",
            h -> {
              List<RunResult> sorted = new ArrayList<>(order.length);
              for (int i : order) {
                sorted.add(results.get(i));
              }
              List<Optional<JobRecord>> written = runsFinished(h, sorted);
              List<Optional<JobRecord>> stored =
                  new ArrayList<>(Collections.nCopies(results.size(), Optional.empty()));
              for (int j = 0; j < order.length; j++) {
                stored.set(order[j], written.get(j));
              }
              return stored;
            });
    signal();
    return out;
  }

  /**
   * Writes a start mark or a write-back through the group commit: marks of runs about to start and
   * write-backs of runs that ended share transactions (in key order, see {@link GroupCommit}), so a
   * mark before every run costs a share of a commit, not a commit of its own.
   */
  private Optional<JobRecord> commit(Object item) {
    return commits.submit(
        item,
        batch ->
            database.inTransaction(
                "writing " + batch.size() + " start marks and write-backs",
                h -> {
                  List<Optional<JobRecord>> out = new ArrayList<>(batch.size());
                  for (Object one : batch) {
                    out.add(apply(h, one));
                  }
                  return out;
                }),
        one -> database.inTransaction(describe(one), h -> apply(h, one)));
  }

  private Optional<JobRecord> apply(Handle h, Object item) {
    if (item instanceof StartMarks.Mark m) {
      tables().jobs().runsStarted(h, List.of(m));
      return Optional.empty();
    }
    return runFinished(h, (RunResult) item);
  }

  private static String keyOf(Object item) {
    return item instanceof StartMarks.Mark m ? m.key() : ((RunResult) item).key();
  }

  private static String describe(Object item) {
    return item instanceof StartMarks.Mark m
        ? "marking the start of job '" + m.key() + "'"
        : "writing back the run of job '"
            + ((RunResult) item).key()
            + "' (fire "
            + ((RunResult) item).scheduledFireTime()
            + ")";
  }

  private Optional<JobRecord> runFinished(Handle h, RunResult x) {
    return runsFinished(h, List.of(x)).get(0);
  }

  /**
   * Writes back runs sorted by key, with one statement per row kind: the rows read and locked in
   * key order, the history rows inserted in one batch, then deletions and history trims (rare),
   * then the rows updated in one batch per claim handling. A row that is gone or unreadable is left
   * as it is (an unreadable one stays RUNNING: recovered once fixed); a repeat of a write-back
   * already committed ({@link WriteBack#isRepeat}) answers the stored row.
   */
  private List<Optional<JobRecord>> runsFinished(Handle h, List<RunResult> sorted) {
    JobTable jobs = tables().jobs();
    Map<String, JobRows.Row> rows = new HashMap<>();
    for (JobRows.Row row : jobs.findAll(h, sorted.stream().map(RunResult::key).toList(), true)) {
      rows.put(row.key(), row);
    }
    List<Optional<JobRecord>> out = new ArrayList<>(sorted.size());
    List<RunResult> history = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    List<JobRecord> ended = new ArrayList<>();
    List<JobRecord> keepingClaim = new ArrayList<>();
    List<Runnable> trims = new ArrayList<>();
    for (RunResult x : sorted) {
      JobRows.Row row = rows.get(x.key());
      if (row == null || readable(row).isEmpty()) {
        out.add(Optional.empty());
        continue;
      }
      JobRecord stored = row.record();
      if (WriteBack.isRepeat(stored, x)) {
        out.add(Optional.of(stored));
        continue;
      }
      String owner = row.owner();
      boolean leasedToOther = owner != null && !owner.equals(x.instance());
      JobRecord updated = WriteBack.apply(stored, x, leasedToOther);
      if (updated.state() == JobState.COMPLETE && !settings.keepCompleted()) {
        deleted.add(x.key());
        out.add(Optional.empty());
        continue;
      }
      if (settings.historyPerJob() > 0) {
        history.add(x);
      }
      trims.add(() -> trimHistory(h, updated, x.end())); // mostly nothing: see trimHistory
      (WriteBack.keepsClaim(stored, x, leasedToOther) ? keepingClaim : ended).add(updated);
      out.add(Optional.of(updated));
    }
    runs.insertAll(h, history);
    for (String key : deleted) {
      delete(h, key);
    }
    trims.forEach(Runnable::run);
    jobs.runsFinished(h, ended, false); // after the trims: their change stamps come last
    jobs.runsFinished(h, keepingClaim, true);
    return out;
  }

  private void trimHistory(Handle h, JobRecord r, Instant newestEnd) {
    if (settings.historyPerJob() == 0 || r.runCount() % TRIM_INTERVAL != 0) {
      return;
    }
    if (r.runCount() > settings.historyPerJob()) {
      runs.keepNewest(h, r.key(), settings.historyPerJob());
    }
    if (settings.historyMaxAge() != null && newestEnd != null) {
      runs.deleteEndedBefore(h, r.key(), minus(newestEnd, settings.historyMaxAge()));
    }
  }

  @Override
  public List<RunRecord> history(String key, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("history limit must not be negative: " + limit);
    }
    int rows = Math.min(limit, settings.historyPerJob());
    return database.withHandle(
        "reading the history of job '" + key + "'", h -> runs.newest(h, key, rows));
  }

  // ---- cluster (see Cluster) -----------------------------------------------------------------

  /** True if built with {@link Builder#clustered(boolean) clustered(true)}. */
  @Override
  public boolean clustered() {
    return settings.clustered();
  }

  @Override
  public void register(String instance) {
    tables().cluster().register(instance);
  }

  @Override
  public void heartbeat(String instance) {
    tables().cluster().heartbeat(instance);
  }

  @Override
  public void deregister(String instance) {
    tables().cluster().deregister(instance);
  }

  @Override
  public List<String> liveInstances(Duration within) {
    return tables().cluster().liveInstances(within);
  }

  /**
   * Registered instances and their last heartbeat by the database clock, by id.
   *
   * @return the last heartbeat of each registered instance, by instance id
   */
  public Map<String, Instant> instances() {
    return tables().cluster().instances();
  }

  @Override
  public Optional<Claimed> claim(JobRecord expected, String instance, Duration lease) {
    return tables().cluster().claim(expected, instance, lease);
  }

  @Override
  public boolean release(String key, String instance, Instant claimedFire) {
    return tables().cluster().release(key, instance, claimedFire);
  }

  @Override
  public int renewClaims(String instance, Map<String, Instant> claimedFires, Duration lease) {
    return tables().cluster().renewClaims(instance, claimedFires, lease);
  }

  @Override
  public List<JobRecord> expiredClaims(int limit) {
    return tables().cluster().expiredClaims(limit);
  }

  @Override
  public Changes changesSince(long cursor, int limit) {
    return tables().cluster().changesSince(cursor, limit);
  }

  @Override
  public long changeCursor() {
    return tables().cluster().changeCursor();
  }

  /**
   * Waits for a notification on PostgreSQL in cluster mode (LISTEN/NOTIFY, on a connection of its
   * own); otherwise just waits {@code max}.
   */
  @Override
  public boolean awaitChange(Duration max) throws InterruptedException {
    return tables().cluster().awaitChange(max);
  }

  /** The database clock, which judges leases and liveness. */
  @Override
  public Instant storeNow() {
    return tables().cluster().now();
  }

  /** A write committed: tell other instances (cluster mode on PostgreSQL only). */
  private void signal() {
    Tables t = tables;
    if (t != null) {
      t.cluster().changed();
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  private List<JobRecord> readableOnly(List<JobRows.Row> rows) {
    List<JobRecord> out = new ArrayList<>(rows.size());
    for (JobRows.Row row : rows) {
      readable(row).ifPresent(out::add);
    }
    return out;
  }

  /** The row's record, or empty after logging (once per key) that it cannot be read. */
  private Optional<JobRecord> readable(JobRows.Row row) {
    if (row.readable()) {
      return Optional.of(row.record());
    }
    if (warnedRows.add(row.key())) {
      log.warn(
          "job '{}': its row in table {}jobs cannot be read ({}); skipped and left as it is",
          row.key(),
          settings.tablePrefix(),
          row.problem());
    }
    return Optional.empty();
  }

  private JobRecord readableOrThrow(JobRows.Row row) {
    if (!row.readable()) {
      throw new UnreadableJobException(
          "job '"
              + row.key()
              + "': its row in table "
              + settings.tablePrefix()
              + "jobs cannot be read: "
              + row.problem());
    }
    return row.record();
  }

  private JobRecord reread(Handle h, String key) {
    return readableOrThrow(
        tables()
            .jobs()
            .find(h, key, false)
            .orElseThrow(() -> new StoreException("job '" + key + "' vanished")));
  }

  private static boolean isUniqueViolation(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s
          && (UNIQUE_VIOLATION.equals(s.getSQLState())
              || (s.getErrorCode() == MARIADB_DUPLICATE_KEY && "23000".equals(s.getSQLState())))) {
        return true;
      }
    }
    return false;
  }

  private static Instant minus(Instant t, Duration d) {
    try {
      return t.minus(d);
    } catch (DateTimeException | ArithmeticException e) {
      return Instant.MIN;
    }
  }

  /** Names the database and the table prefix, as the scheduler's start-up log shows it. */
  @Override
  public String toString() {
    return "JdbcStore[" + database + ", prefix " + settings.tablePrefix() + "]";
  }

  // ---- builder -------------------------------------------------------------------------------

  /**
   * Configures a {@link JdbcStore}. Give exactly one source of connections: {@link #h2(Path)},
   * {@link #url(String)} (with {@link #user} and {@link #password}), or {@link #dataSource}. Every
   * method validates its argument at once.
   */
  public static final class Builder {
    private Path h2Dir;
    private String url;
    private DataSource dataSource;
    private String user;
    private String password;
    private Integer poolSize;
    private String tablePrefix = DEFAULT_TABLE_PREFIX;
    private boolean createSchema = true;
    private boolean keepCompleted = true;
    private int historyPerJob = DEFAULT_HISTORY_PER_JOB;
    private Duration historyMaxAge;
    private Duration startMarkDelay = DEFAULT_START_MARK_DELAY;
    private boolean clustered;
    private Duration changeSettle = ChangeFeed.SETTLE;

    private Builder() {}

    /**
     * An embedded H2 database file in this folder (see {@link JdbcStore#h2(Path)}).
     *
     * @param dir the folder of the database file, created if needed
     * @return this builder
     */
    public Builder h2(Path dir) {
      if (dir == null) {
        throw new IllegalArgumentException("H2 folder is null");
      }
      if (dir.toAbsolutePath().toString().contains(";")) {
        throw new IllegalArgumentException("H2 folder must not contain ';': " + dir);
      }
      requireNoSource("h2(" + dir + ")");
      this.h2Dir = dir.toAbsolutePath().normalize();
      return this;
    }

    /**
     * A JDBC URL of H2, PostgreSQL or MariaDB; the store makes a pool for it and closes it. Its
     * driver must be on the class path: {@code open()} names the artifact to add if it is not.
     *
     * @param url the JDBC URL, starting with {@code jdbc:}
     * @return this builder
     */
    public Builder url(String url) {
      if (url == null || !url.startsWith("jdbc:")) {
        throw new IllegalArgumentException("JDBC URL must start with 'jdbc:': " + url);
      }
      requireNoSource("url(" + redact(url) + ")");
      this.url = url;
      return this;
    }

    /**
     * The user for {@link #url(String)}.
     *
     * @param user the database user, or null for none
     * @return this builder
     */
    public Builder user(String user) {
      this.user = user;
      return this;
    }

    /**
     * The password for {@link #url(String)}.
     *
     * @param password the database password, or null for none
     * @return this builder
     */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /**
     * Connections the store makes for a URL or H2 folder (default {@value #DEFAULT_POOL_SIZE}).
     *
     * @param poolSize the pool's maximum connections, at least 1
     * @return this builder
     */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1) {
        throw new IllegalArgumentException("pool size must be at least 1: " + poolSize);
      }
      this.poolSize = poolSize;
      return this;
    }

    /**
     * The user's own data source, H2, PostgreSQL or MariaDB; never closed by the store. A driver's
     * plain data source, which opens a connection per call, is wrapped in a pool the store makes.
     *
     * @param dataSource the data source to use
     * @return this builder
     */
    public Builder dataSource(DataSource dataSource) {
      if (dataSource == null) {
        throw new IllegalArgumentException("data source is null");
      }
      requireNoSource("dataSource(" + dataSource + ")");
      this.dataSource = dataSource;
      return this;
    }

    /**
     * Prefix of every table and index name (default {@value #DEFAULT_TABLE_PREFIX}): a letter or
     * underscore, then up to 30 letters, digits or underscores.
     *
     * @param prefix the table name prefix
     * @return this builder
     */
    public Builder tablePrefix(String prefix) {
      if (prefix == null || !IDENTIFIER.matcher(prefix).matches()) {
        throw new IllegalArgumentException(
            "table prefix must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]{0,30}): '"
                + prefix
                + "'");
      }
      this.tablePrefix = prefix;
      return this;
    }

    /**
     * Whether {@code open()} creates and upgrades the tables (default true). With false, run the
     * DDL yourself; {@code open()} then only checks the schema version and fails clearly if the
     * tables are missing or out of date.
     *
     * @param createSchema false to manage the DDL yourself
     * @return this builder
     */
    public Builder createSchema(boolean createSchema) {
      this.createSchema = createSchema;
      return this;
    }

    /**
     * Whether a one-shot job that has run stays, COMPLETE (default true), or is deleted.
     *
     * @param keepCompleted false to delete one-shot jobs once they have run
     * @return this builder
     */
    public Builder keepCompleted(boolean keepCompleted) {
      this.keepCompleted = keepCompleted;
      return this;
    }

    /**
     * Runs kept per job (default {@value #DEFAULT_HISTORY_PER_JOB}; 0 keeps no history).
     *
     * @param historyPerJob the most runs kept per job, 0 or more
     * @return this builder
     */
    public Builder historyPerJob(int historyPerJob) {
      if (historyPerJob < 0) {
        throw new IllegalArgumentException(
            "history per job must not be negative: " + historyPerJob);
      }
      this.historyPerJob = historyPerJob;
      return this;
    }

    /**
     * Also deletes runs that ended longer than this before the job's newest run (default: kept up
     * to {@link #historyPerJob}). Applied when the history is trimmed, every {@value
     * JdbcStore#TRIM_INTERVAL} runs of a job.
     *
     * @param maxAge the longest age of a kept run, positive
     * @return this builder
     */
    public Builder historyMaxAge(Duration maxAge) {
      if (maxAge == null || maxAge.isNegative() || maxAge.isZero()) {
        throw new IllegalArgumentException("history max age must be positive: " + maxAge);
      }
      this.historyMaxAge = maxAge;
      return this;
    }

    /**
     * How long a run must last before the store marks it RUNNING (default {@link
     * #DEFAULT_START_MARK_DELAY}, zero: every run is marked before its job starts, in a commit
     * shared with other marks and write-backs). The mark makes the re-run after a crash carry
     * {@code recovery() == true}. A positive delay saves the marks of shorter runs, at a price: a
     * crash within the delay still re-runs the fire, but without the flag.
     *
     * @param delay how long a run lasts before it is marked, zero or more
     * @return this builder
     */
    public Builder startMarkDelay(Duration delay) {
      if (delay == null || delay.isNegative()) {
        throw new IllegalArgumentException("start mark delay must not be negative: " + delay);
      }
      this.startMarkDelay = delay;
      return this;
    }

    /**
     * Cluster mode (default false): several scheduler instances, in one process or many, share the
     * tables, and each fire runs on one live instance. Every instance sharing the tables must be
     * clustered. It needs a database several processes can reach: PostgreSQL (which also notifies
     * the instances of changes at once), MariaDB (polled every {@code clusterPoll}), or an H2
     * server ({@code jdbc:h2:tcp:...}, {@code AUTO_SERVER=TRUE}) or in-memory database ({@code
     * jdbc:h2:mem:...}, one JVM), which are polled. An embedded H2 file ({@link #h2(Path)}, {@code
     * jdbc:h2:file:...}) is refused: only one process can open it, so there is nothing to share.
     *
     * @param clustered true to share the tables with other instances
     * @return this builder
     */
    public Builder clustered(boolean clustered) {
      this.clustered = clustered;
      return this;
    }

    /** For tests: how long after its stamp a change counts as settled (see ChangeFeed). */
    Builder changeSettle(Duration settle) {
      this.changeSettle = settle;
      return this;
    }

    /**
     * The store; nothing is opened until {@link JdbcStore#open()}.
     *
     * @return the configured store, not yet open
     */
    public JdbcStore build() {
      if (h2Dir == null && url == null && dataSource == null) {
        throw new IllegalStateException("no database: call h2(dir), url(...) or dataSource(...)");
      }
      if (clustered && (h2Dir != null || isEmbeddedH2(url))) {
        throw new IllegalStateException(
            "cluster mode needs a database several processes share (PostgreSQL, or an H2 server"
                + " URL), not the embedded H2 file "
                + (h2Dir != null ? h2Dir.toString() : redact(url)));
      }
      if (url == null && (user != null || password != null)) {
        throw new IllegalStateException("user and password apply to url(...) only");
      }
      if (dataSource != null && poolSize != null) {
        throw new IllegalStateException("pool size does not apply to a user's data source");
      }
      int pool = poolSize == null ? DEFAULT_POOL_SIZE : poolSize;
      ConnectionSource source;
      if (dataSource != null) {
        source = ConnectionSource.of(dataSource, DEFAULT_POOL_SIZE);
      } else if (h2Dir != null) {
        Path file = h2Dir.resolve("kairos");
        source = ConnectionSource.h2File(h2Url(file), file, pool, "h2 file " + file);
      } else {
        source = ConnectionSource.pool(url, user, password, pool, redact(url));
      }
      return new JdbcStore(
          source,
          new StoreSettings(
              tablePrefix,
              createSchema,
              keepCompleted,
              historyPerJob,
              historyMaxAge,
              clustered,
              changeSettle),
          startMarkDelay);
    }

    /**
     * True for the URL of an H2 database file opened in this process: not {@code tcp:} or {@code
     * ssl:} (a server), not {@code mem:} (in this JVM only, but shared by its stores), not {@code
     * AUTO_SERVER=TRUE} (other processes reach it through the first one's server). Null: false.
     */
    static boolean isEmbeddedH2(String url) {
      if (url == null || !url.regionMatches(true, 0, "jdbc:h2:", 0, 8)) {
        return false;
      }
      String rest = url.substring(8).toLowerCase(Locale.ROOT);
      return !(rest.startsWith("tcp:")
          || rest.startsWith("ssl:")
          || rest.startsWith("mem:")
          || rest.replace(" ", "").contains(";auto_server=true"));
    }

    /**
     * The URL of {@link #h2(Path)}'s database file.
     *
     * <p>async: H2's file system over AsynchronousFileChannel, which an interrupt does not close.
     * Over the default one, a thread interrupted inside any store call (a worker interrupted at
     * close, a user's request thread cancelled) closes the FileChannel and with it the whole
     * database for every thread until the process restarts.
     *
     * <p>WRITE_DELAY=0: each commit is written to the file before it returns, so it survives a
     * kill. MAX_COMPACT_TIME=0: no file compaction when the last connection closes; H2 2.3's
     * compact-on-close is where its reported assertion failures and lost chunks come from
     * (h2database issues 4086, 4247).
     *
     * <p>RETENTION_TIME=0: a chunk no longer in use is overwritten at once instead of kept for 45
     * s. Every commit writes a new chunk (about 18 KB here), and WRITE_DELAY=0 stops H2's
     * background thread, the only one that compacts, so with the default retention the file grew by
     * every commit: 179 MB after 10,000 write-backs, 155 MB after 8,500 fires. With 0 it levels off
     * at about 22 MB ({@code H2FileSizeTest}, {@code H2Growth} in benchmarks). A process crash
     * (SIGKILL) loses nothing either way, as the operating system's page cache survives it
     * (H2CrashTest). The retention guards against an OS crash or power loss: H2 never forces a
     * commit to the disk (no fsync), so such a crash loses recent commits with either setting, and
     * with 0 it may also damage older data in the file. Put the folder on storage whose writes
     * survive power loss, or use PostgreSQL, where that matters.
     */
    static String h2Url(Path file) {
      return "jdbc:h2:async:"
          + file
          + ";WRITE_DELAY=0;MAX_COMPACT_TIME=0;RETENTION_TIME=0;DB_CLOSE_ON_EXIT=FALSE";
    }

    private void requireNoSource(String attempted) {
      if (h2Dir != null || url != null || dataSource != null) {
        throw new IllegalStateException(
            "the database is already set; cannot also use " + attempted);
      }
    }

    private static String redact(String url) {
      return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
  }
}
