package dev.kairos.jdbc.internal;

import dev.kairos.JobState;
import dev.kairos.RunRecord;
import dev.kairos.StoreException;
import dev.kairos.UnreadableJob;
import dev.kairos.UnreadableJobException;
import dev.kairos.spi.BackfillSlot;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.ConcurrentRun;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.StartMark;
import dev.kairos.spi.Upsert;
import dev.kairos.spi.WindowCursor;
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
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store SPI over a relational database, behind {@code dev.kairos.jdbc.JdbcStore}: the facade
 * configures it and hands it out as its {@code jobStore()}; the engine and the tools call it. See
 * {@code JdbcStore} for what users are promised (durability, unreadable rows, cluster mode).
 */
public final class JdbcJobStore implements ClusterStore {
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

  /** A job's history is trimmed after every this many of its runs. */
  private static final int TRIM_INTERVAL = 10;

  /** Logged under the facade's name, which users know and configure. */
  private static final Logger log = LoggerFactory.getLogger("dev.kairos.jdbc.JdbcStore");

  private static final String UNIQUE_VIOLATION = "23505";
  private static final int MARIADB_DUPLICATE_KEY = 1062;

  private final Database database;
  private final ConnectionSource source;
  private final StoreSettings settings;
  private final RunTable runs;
  private final BackfillTable backfill;
  private final CalendarTable calendarTable;

  /** Names of unreadable calendars already logged. */
  private final Set<String> warnedCalendars = ConcurrentHashMap.newKeySet();

  /** The dialect's statements, built on first use. */
  private volatile Tables tables;

  /** Keys of unreadable rows already logged; each is logged once per store. */
  private final Set<String> warnedRows = ConcurrentHashMap.newKeySet();

  /** Keys whose unreadable backfill rows were logged. */
  private final Set<String> warnedSlots = ConcurrentHashMap.newKeySet();

  /**
   * Start marks ({@link StartMarks.Mark}) and write-backs ({@link RunResult}): those that arrive
   * together are committed together, several such transactions in flight at once.
   */
  private final GroupCommit<Object, Optional<JobRecord>> commits;

  /** See {@code JdbcStore.Builder.startMarkDelay}. */
  private final Duration startMarkDelay;

  /** Start marks, written only for runs still going after the start-mark delay. */
  private final StartMarks startMarks;

  /** The statements of one dialect, and the cluster side of the store. */
  private record Tables(JobTable jobs, Cluster cluster) {}

  /** Tells an embedded H2 file's URL (which cluster mode refuses) from a shared database's. */
  private final Predicate<String> embeddedH2;

  /**
   * A store over {@code source}, not yet open.
   *
   * @param source the connections
   * @param settings the store's settings
   * @param startMarkDelay how long a run lasts before it is marked RUNNING, zero or more
   * @param embeddedH2 true for the JDBC URL of an H2 file only this process can open
   */
  public JdbcJobStore(
      ConnectionSource source,
      StoreSettings settings,
      Duration startMarkDelay,
      Predicate<String> embeddedH2) {
    this.embeddedH2 = embeddedH2;
    this.startMarkDelay = startMarkDelay;
    this.database = new Database(source, settings.tablePrefix(), settings.createSchema());
    this.source = source;
    this.settings = settings;
    this.runs = new RunTable(settings.tablePrefix());
    this.backfill = new BackfillTable(settings.tablePrefix());
    this.calendarTable = new CalendarTable(settings.tablePrefix());
    this.commits = new GroupCommit<>(JdbcJobStore::keyOf, GroupCommit.lanesFor(source.poolSize()));
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
    database.withHandle(
        "reading backfill slots in unknown states",
        h -> {
          backfill.reportUnknownStates(h, this::badSlot);
          return null;
        });
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
        Cluster cluster = Cluster.of(database, source, settings, this::readable, embeddedH2);
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
    Upsert u = newOrUnchanged(what, fresh);
    if (u == null) {
      u = retryingInsertRace(what, h -> upsert(h, fresh));
    }
    if (log.isTraceEnabled()) {
      log.trace(
          "job '{}': upsert {}: version {} {} due {}",
          fresh.key(),
          u.change(),
          u.record().version(),
          u.record().state(),
          u.record().dueTime());
    }
    if (u.change() != Upsert.Change.UNCHANGED) {
      signal();
    }
    return u;
  }

  /**
   * A job attached to no calendar is written without a transaction of its own when it is new or
   * unchanged. PostgreSQL inserts it first, in auto-commit ({@code ON CONFLICT (job_key) DO
   * NOTHING}): a new job costs one round trip with its commit, where the transaction took three (a
   * locking look-up, the insert, the commit). MariaDB and H2 read the row first without a lock and
   * insert it in auto-commit if there is none (on MariaDB two round trips where the transaction
   * took five, its autocommit switches included); an insert that loses a race to another caller's
   * commit fails on the key and counts as a row that exists. If a row has the key, it is read
   * without a lock and an equal readable definition is {@code UNCHANGED} (an application scheduling
   * its jobs again at every start: nothing written, no commit to wait for, where the locking read
   * made the commit write). Returns null otherwise (a changed or unreadable definition, the MySQL
   * dialect, a job with a calendar, whose row must be locked first): then the transaction of {@link
   * #upsert(Handle, JobRecord)} decides, as it always did. A change committed after the unlocked
   * read is one that came after this call.
   */
  private Upsert newOrUnchanged(String what, JobRecord fresh) {
    Dialect d = database.dialect();
    if (d == Dialect.MYSQL || fresh.spec().calendar().isPresent()) {
      return null;
    }
    JobRecord created = fresh.withVersion(JobRecord.firstVersion());
    Upsert inserted = new Upsert(WriteBack.trimmed(created), Upsert.Change.CREATED);
    return database.withHandle(
        what,
        h -> {
          JobTable jobs = tables().jobs();
          JobRows.Row row;
          if (d == Dialect.POSTGRESQL) {
            if (jobs.insertIfAbsent(h, created)) {
              return inserted;
            }
            row = jobs.find(h, fresh.key(), false).orElse(null);
          } else {
            row = jobs.find(h, fresh.key(), false).orElse(null);
            if (row == null) {
              try {
                jobs.insert(h, created);
                return inserted;
              } catch (RuntimeException e) {
                if (isUniqueViolation(e)) {
                  return null; // another caller's insert committed first
                }
                throw e;
              }
            }
          }
          return row != null && unchanged(row, fresh)
              ? new Upsert(row.record(), Upsert.Change.UNCHANGED)
              : null;
        });
  }

  /**
   * The rule of every upsert path: a stored row that is readable and holds {@code fresh}'s
   * definition is left as it is ({@code UNCHANGED}); any other row is replaced.
   */
  private static boolean unchanged(JobRows.Row row, JobRecord fresh) {
    return row.readable() && row.record().spec().equals(fresh.spec());
  }

  private Upsert upsert(Handle h, JobRecord fresh) throws SQLException {
    lockCalendars(h, List.of(fresh));
    JobTable jobs = tables().jobs();
    Optional<JobRows.Row> old = jobs.find(h, fresh.key(), true);
    if (old.isEmpty()) {
      JobRecord created = fresh.withVersion(JobRecord.firstVersion());
      jobs.insert(h, created);
      return new Upsert(WriteBack.trimmed(created), Upsert.Change.CREATED);
    }
    JobRows.Row row = old.get();
    if (unchanged(row, fresh)) {
      return new Upsert(row.record(), Upsert.Change.UNCHANGED);
    }
    jobs.updateDefinition(h, fresh.withVersion(row.version() + 1));
    return new Upsert(reread(h, fresh.key()), Upsert.Change.UPDATED);
  }

  @Override
  public Optional<JobRecord> find(String key) {
    if (unholdable(key) != null) {
      return Optional.empty(); // no such job can be stored (see unstorable)
    }
    JobTable jobs = tables().jobs();
    return database
        .withHandle("reading job '" + key + "'", h -> jobs.find(h, key, false))
        .map(row -> readableOrThrow(row));
  }

  @Override
  public List<JobRecord> findAll() {
    return readableOnly(database.withHandle("reading all jobs", tables().jobs()::findAll));
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
    if (log.isTraceEnabled()) {
      log.trace(
          "job '{}': replace at version {} with {} due {}: {}",
          updated.key(),
          expectedVersion,
          updated.state(),
          updated.dueTime(),
          stored.map(r -> "version " + r.version()).orElse("missed"));
    }
    stored.ifPresent(r -> signal());
    return stored;
  }

  @Override
  public boolean delete(String key) {
    if (unholdable(key) != null) {
      return false;
    }
    boolean deleted = database.inTransaction("deleting job '" + key + "'", h -> delete(h, key));
    if (deleted) {
      signal();
    }
    return deleted;
  }

  /** Deletes the job and its history, leaving a tombstone for the change feed. */
  private boolean delete(Handle h, String key) {
    runs.deleteAll(h, key);
    backfill.delete(h, key);
    boolean deleted = tables().jobs().delete(h, key);
    if (deleted) {
      tables().cluster().deleted(h, key);
    }
    return deleted;
  }

  // ---- bulk writes ---------------------------------------------------------------------------

  /**
   * Most transactions one upsert ({@code upsert}, {@code upsertAll}, {@code putCalendar}) runs when
   * other callers keep inserting its keys first: each lost race means one of them committed a key,
   * which the next attempt finds.
   */
  static final int UPSERT_ATTEMPTS = 8;

  /**
   * Runs {@code work} in a transaction, and again (at most {@link #UPSERT_ATTEMPTS} times in all)
   * while it fails on a unique key that another caller inserted between its look and its insert:
   * the insert waited for that caller's commit, so the next attempt finds the row.
   */
  private <T> T retryingInsertRace(String what, HandleCallback<T, SQLException> work) {
    return retryingInsertRace(what, (h, joined) -> work.withHandle(h));
  }

  private <T> T retryingInsertRace(String what, Database.JoiningWork<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return database.inTransactionJoining(what, work);
      } catch (StoreException e) {
        if (!isUniqueViolation(e) || attempt >= UPSERT_ATTEMPTS) {
          throw e;
        }
        log.debug("{}: a key was inserted concurrently; running it again", what);
      }
    }
  }

  private static final Comparator<JobRecord> BY_KEY = Comparator.comparing(JobRecord::key);

  /**
   * Whether the last bulk upsert that looked found rows with its keys: while it did, the next one
   * reads first rather than trying {@link #insertAllNew} (which would fail on the first such key).
   */
  private volatile boolean bulkKeysExist;

  /**
   * {@link #upsert} of each record in one transaction. On PostgreSQL and H2 the records are first
   * inserted as new jobs ({@link #insertAllNew}) unless the last bulk upsert found keys that
   * existed or the call joins the application's open transaction (each chunk's savepoint would be a
   * subtransaction kept until that transaction ends: on PostgreSQL, more than 64 of them in one
   * transaction slow every other session's snapshot checks); if one of them exists, the insert is
   * rolled back to its savepoint and the transaction goes on the general way: the existing rows
   * read and locked with one query per 1,000 keys, changed definitions updated in one batch, new
   * jobs inserted in one batch. Keep batches to about a thousand records (the engine does): the
   * change feed assumes that a transaction commits well within {@link ChangeFeed#SETTLE} of
   * stamping its rows.
   */
  @Override
  public List<Upsert> upsertAll(List<JobRecord> fresh) {
    if (fresh.isEmpty()) {
      return List.of();
    }
    Dialect d = database.dialect();
    boolean mayInsertFirst = (d == Dialect.POSTGRESQL || d == Dialect.H2) && fresh.size() > 1;
    List<Upsert> out =
        retryingInsertRace(
            "upserting " + fresh.size() + " job(s) from '" + fresh.get(0).key() + "'",
            (h, joined) -> upsertAll(h, fresh, mayInsertFirst && !joined && !bulkKeysExist));
    if (out.stream().anyMatch(u -> u.change() != Upsert.Change.UNCHANGED)) {
      signal();
    }
    return out;
  }

  /** The savepoint of {@link #insertAllNew}. */
  private static final String INSERT_NEW = "kairos_insert_new";

  /**
   * The records inserted as new jobs, in key order, without looking for their rows first (the
   * common case of a bulk call: 100,000 new jobs about 1.3 times as fast on PostgreSQL as with the
   * look-up of {@link #upsertAll(Handle, List, boolean)}); or null, with nothing inserted, if a key
   * exists. The first such key fails the insert on the unique key (after waiting for another
   * caller's transaction that inserted it, as any insert does); the insert is then rolled back to a
   * savepoint taken before it, so that the transaction, which may be the application's own, goes on
   * (PostgreSQL refuses every statement of a transaction after a failed one, and H2 keeps the rows
   * of a batch that did not fail).
   */
  private List<Upsert> insertAllNew(Handle h, List<JobRecord> fresh) throws SQLException {
    List<JobRecord> created = new ArrayList<>(fresh.size());
    List<Upsert> out = new ArrayList<>(fresh.size());
    for (JobRecord r : fresh) {
      JobRecord c = r.withVersion(JobRecord.firstVersion());
      created.add(c);
      out.add(new Upsert(WriteBack.trimmed(c), Upsert.Change.CREATED));
    }
    created.sort(BY_KEY);
    h.savepoint(INSERT_NEW);
    try {
      tables().jobs().insertAll(h, created);
    } catch (SQLException | RuntimeException e) {
      if (!isUniqueViolation(e)) {
        throw e;
      }
      h.rollbackToSavepoint(INSERT_NEW);
      bulkKeysExist = true;
      return null;
    }
    h.releaseSavepoint(INSERT_NEW);
    return out;
  }

  private List<Upsert> upsertAll(Handle h, List<JobRecord> fresh, boolean insertFirst)
      throws SQLException {
    lockCalendars(h, fresh);
    if (insertFirst) {
      List<Upsert> created = insertAllNew(h, fresh);
      if (created != null) {
        return created;
      }
    }
    JobTable jobs = tables().jobs();
    List<String> keys = fresh.stream().map(JobRecord::key).toList();
    Map<String, JobRows.Row> old = new HashMap<>();
    for (JobRows.Row row : jobs.findAll(h, keys, true)) {
      old.put(row.key(), row);
    }
    bulkKeysExist = !old.isEmpty();
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
      } else if (unchanged(row, r)) {
        out[i] = new Upsert(row.record(), Upsert.Change.UNCHANGED);
      } else {
        updated.add(r.withVersion(row.version() + 1));
      }
    }
    // Rows written in key order, as they are locked: calls racing on the same keys then wait for
    // each other instead of deadlocking (H2 cannot tell a deadlock from a slow lock).
    created.sort(BY_KEY);
    updated.sort(BY_KEY);
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

  /**
   * 2 on PostgreSQL with a pool of 3 or more connections (or of unknown size: a data source other
   * than HikariCP, counted as the default pool as for the write-back lanes), else 1. With two
   * transactions side by side PostgreSQL stored 100,000 new jobs about 1.45 times as fast as with
   * one (the server works on one while the client binds the next); H2 gained nothing, and on
   * MariaDB and MySQL the key range locks of concurrent batches could deadlock, so they stay at
   * one.
   */
  @Override
  public int parallelUpserts() {
    int pool = source.poolSize();
    return database.dialect() == Dialect.POSTGRESQL && (pool == 0 || pool >= 3) ? 2 : 1;
  }

  /** {@link #delete} of each key in one transaction: rows, their history and tombstones. */
  @Override
  public List<String> deleteAll(Collection<String> keys) {
    if (keys.isEmpty()) {
      return List.of();
    }
    List<String> distinct =
        new LinkedHashSet<>(keys).stream().filter(k -> unholdable(k) == null).toList();
    if (distinct.isEmpty()) {
      return List.of();
    }
    List<String> deleted =
        database.inTransaction(
            "deleting " + distinct.size() + " job(s) from '" + distinct.get(0) + "'",
            h -> {
              List<String> gone = tables().jobs().deleteAll(h, distinct);
              if (!gone.isEmpty()) {
                runs.deleteAll(h, gone);
                backfill.deleteAll(h, gone);
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

  /**
   * Marks the start: state RUNNING (if SCHEDULED) and last start; same version. Deferred by the
   * start-mark delay, except in the caller's open transaction (see {@link #runsStarted}).
   */
  @Override
  public void runStarted(String key, Instant scheduledFireTime, Instant start, String instance) {
    if (database.callerTransactionOpen()) {
      startMarks.startedNow(key, start);
    } else {
      startMarks.started(key, start);
    }
  }

  @Override
  public Optional<JobRecord> runFinished(RunResult x) {
    startMarks.finished(x.key());
    Optional<JobRecord> stored = commit(storable(x, database.textCharset()));
    signal();
    return stored;
  }

  /**
   * The result with its run's error text as this database holds it ({@link
   * JobRules#storableError(String, java.nio.charset.Charset)}): written so, and so in the record
   * returned.
   */
  private static RunResult storable(RunResult x, java.nio.charset.Charset charset) {
    RunRecord run = storable(x.run(), charset);
    return run == x.run() ? x : new RunResult(run, x.expectedVersion(), x.next(), x.spec());
  }

  private static RunRecord storable(RunRecord run, java.nio.charset.Charset charset) {
    String error = JobRules.storableError(run.error(), charset);
    if (Objects.equals(error, run.error())) {
      return run;
    }
    return new RunRecord(
        run.key(),
        run.scheduledFireTime(),
        run.start(),
        run.end(),
        run.outcome(),
        error,
        run.attempt(),
        run.instance(),
        run.recovery(),
        run.missedFires(),
        run.backfill());
  }

  /**
   * {@inheritDoc} Checked against the statement size the server takes ({@link
   * #tooLongForOneStatement}) and the database's encoding ({@link Database#textCharset}). A key it
   * cannot hold belongs to no stored job: reads and deletions of one answer "none" without asking
   * the database, which would refuse the statement.
   */
  @Override
  public String unholdable(String text) {
    if (text == null) {
      return null;
    }
    String tooLong = tooLongForOneStatement(text);
    if (tooLong != null) {
      return tooLong;
    }
    java.nio.charset.Charset cs = database.textCharset();
    if (cs == null) {
      return null;
    }
    java.nio.charset.CharsetEncoder encoder = cs.newEncoder();
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      int n = Character.charCount(cp);
      if (!encoder.canEncode(text.subSequence(i, i + n))) {
        return String.format(
            "has a character the database's encoding (%s) cannot hold: '%s' (U+%04X) at index %d",
            cs.name(), new String(Character.toChars(cp)), cp, i);
      }
      i += n;
    }
    return null;
  }

  /**
   * Room a statement needs besides one long text: the other columns of a job's row and the SQL
   * around them (a few kilobytes), with ample margin.
   */
  public static final long STATEMENT_ROOM = 64 * 1024;

  /**
   * Why a statement carrying {@code text} would exceed the server's limit ({@link
   * Database#maxStatementBytes}, MariaDB's and MySQL's {@code max_allowed_packet}), or null.
   * MariaDB drops the connection on such a statement, and the error says only "Socket error". The
   * text is counted as the driver sends it: UTF-8, with a backslash before each quote, backslash,
   * line feed, carriage return and Ctrl-Z.
   */
  private String tooLongForOneStatement(String text) {
    long max = database.maxStatementBytes();
    if (max == Long.MAX_VALUE || (long) text.length() * 3 + STATEMENT_ROOM <= max) {
      return null; // at most three bytes a UTF-16 char, escapes included
    }
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += (c == '\'' || c == '"' || c == '\\' || c == '\n' || c == '\r' || c == 26) ? 2 : 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 2; // a pair is four bytes: two here, two for its low half
      } else {
        bytes += Character.isLowSurrogate(c) ? 2 : 3;
      }
    }
    if (bytes + STATEMENT_ROOM <= max) {
      return null;
    }
    return String.format(
        java.util.Locale.ROOT,
        "is %,d bytes as sent to the database, more than its max_allowed_packet (%,d bytes, read"
            + " when the store opened) leaves for it after %,d bytes for the rest of the statement;"
            + " raise max_allowed_packet on the server, or keep the payload elsewhere and store a"
            + " reference to it",
        bytes,
        max,
        STATEMENT_ROOM);
  }

  /** True: runs are written in batches (see {@link #runsFinished}, {@link #runsStarted}). */
  @Override
  public boolean batchesRuns() {
    return true;
  }

  /**
   * Marks the runs in one transaction; with a positive start-mark delay instead each is marked only
   * if its write-back has not come within the delay (counted from this call), as {@link
   * #runStarted} does. In the caller's open transaction (a run going here marked again after a
   * change made there) the marks are written at once, in that transaction, whatever the delay: the
   * delay's flusher, on a thread of its own, would wait for that transaction's row locks, and
   * write-backs wait for the flusher.
   */
  @Override
  public void runsStarted(List<StartMark> marks) {
    if (startMarkDelay.isZero() || database.callerTransactionOpen()) {
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
  public List<Optional<JobRecord>> runsFinished(List<RunResult> given) {
    if (given.isEmpty()) {
      return List.of();
    }
    java.nio.charset.Charset charset = database.textCharset();
    List<RunResult> results = given.stream().map(x -> storable(x, charset)).toList();
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
    traceCommitted(results, out);
    signal();
    return out;
  }

  /**
   * Writes a start mark or a write-back through the group commit: marks of runs about to start and
   * write-backs of runs that ended share transactions (in key order, see {@link GroupCommit}), so a
   * mark before every run costs a share of a commit, not a commit of its own. A batch of several
   * jobs first locks all their rows with one read, in key order (the batch is sorted), so no item's
   * change stamp is taken before a wait for another item's row lock. A call made in the
   * application's open transaction (a start mark written by a {@code pause()} there) is written on
   * its own thread, in that transaction, never batched.
   */
  private Optional<JobRecord> commit(Object item) {
    Optional<JobRecord> out = commitInBatch(item);
    if (log.isTraceEnabled() && item instanceof RunResult x) { // nothing built on the hot path
      if (database.callerTransactionOpen()) {
        log.trace( // not committed yet: the application commits or rolls back
            "job '{}': write-back of fire {} made in the application's open transaction",
            x.key(),
            x.scheduledFireTime());
      } else {
        traceCommitted(List.of(x), List.of(out));
      }
    }
    return out;
  }

  /**
   * TRACE: the write-backs whose transaction committed (the line in {@code runsFinished(Handle,
   * ..)} is logged inside the transaction, before the commit).
   */
  private static void traceCommitted(List<RunResult> results, List<Optional<JobRecord>> stored) {
    if (!log.isTraceEnabled()) {
      return;
    }
    for (int i = 0; i < results.size(); i++) {
      if (stored.get(i).isPresent()) {
        log.trace(
            "job '{}': write-back of fire {} committed: version {}",
            results.get(i).key(),
            results.get(i).scheduledFireTime(),
            stored.get(i).get().version());
      }
    }
  }

  private Optional<JobRecord> commitInBatch(Object item) {
    if (database.callerTransactionOpen()) {
      // Written here, in the application's transaction, alone: through the group commit another
      // thread's batch could take it (and wait for the application's row locks while the
      // application waits for that batch), or this thread's batch could take other threads' items
      // into the application's transaction, which may still roll back.
      return database.inTransaction(describe(item), h -> apply(h, item));
    }
    return commits.submit(
        item,
        batch ->
            database.inTransaction(
                "writing " + batch.size() + " start marks and write-backs",
                h -> {
                  List<String> keys = batch.stream().map(JdbcJobStore::keyOf).distinct().toList();
                  if (keys.size() > 1) {
                    tables().jobs().findAll(h, keys, true); // all locked, in key order, first
                  }
                  List<Optional<JobRecord>> out = new ArrayList<>(batch.size());
                  for (Object one : batch) {
                    out.add(apply(h, one));
                  }
                  return out;
                }),
        one -> database.inTransaction(describe(one), h -> apply(h, one)));
  }

  private Optional<JobRecord> apply(Handle h, Object item) throws SQLException {
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

  private Optional<JobRecord> runFinished(Handle h, RunResult x) throws SQLException {
    return runsFinished(h, List.of(x)).get(0);
  }

  /**
   * Writes back runs sorted by key, with one statement per row kind: the rows read and locked in
   * key order, the history rows inserted in one batch, then deletions and history trims (rare),
   * then the rows updated in one batch per claim handling. A row that is gone or unreadable is left
   * as it is (an unreadable one stays RUNNING: recovered once fixed); a repeat of a write-back
   * already committed ({@link WriteBack#isRepeat}) answers the stored row.
   */
  private List<Optional<JobRecord>> runsFinished(Handle h, List<RunResult> sorted)
      throws SQLException {
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
        log.trace("job '{}': write-back of fire {} is a repeat", x.key(), x.scheduledFireTime());
        out.add(Optional.of(stored));
        continue;
      }
      String owner = row.owner();
      boolean leasedToOther = owner != null && !owner.equals(x.instance());
      JobRecord updated = WriteBack.apply(stored, x, leasedToOther);
      if (log.isTraceEnabled()) {
        log.trace(
            "job '{}': write-back of fire {} over version {} {}: version {} {} due {}",
            x.key(),
            x.scheduledFireTime(),
            stored.version(),
            stored.state(),
            updated.version(),
            updated.state(),
            updated.dueTime());
      }
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
    runs.insertAll(h, database.dialect(), history);
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
    trimRuns(h, r.key(), r.runCount() > settings.historyPerJob(), newestEnd);
  }

  /**
   * The retention rule of a job's history: all but the newest {@code historyPerJob} runs deleted
   * (if it may hold more), and, with {@code historyMaxAge}, the runs that ended that long before
   * {@code newestEnd}.
   */
  private void trimRuns(Handle h, String key, boolean mayHoldMore, Instant newestEnd) {
    if (mayHoldMore) {
      runs.keepNewest(h, key, settings.historyPerJob());
    }
    if (settings.historyMaxAge() != null && newestEnd != null) {
      runs.deleteEndedBefore(h, key, minus(newestEnd, settings.historyMaxAge()));
    }
  }

  /**
   * Appends the entry in one transaction, with the job's row locked, so that an entry never
   * outlives a job deleted meanwhile; then trims the job's history to {@code historyPerJob}.
   */
  @Override
  public void recordSkipped(RunRecord given) {
    JobRules.checkRun(given);
    RunRecord skipped = storable(given, database.textCharset());
    if (settings.historyPerJob() == 0) {
      return;
    }
    database.inTransaction(
        "recording skipped fires of job '" + skipped.key() + "'",
        h -> {
          if (tables().jobs().find(h, skipped.key(), true).isPresent()) {
            runs.insert(h, skipped);
            runs.keepNewest(h, skipped.key(), settings.historyPerJob());
          }
          return null;
        });
  }

  @Override
  public List<RunRecord> history(String key, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("history limit must not be negative: " + limit);
    }
    int rows = Math.min(limit, settings.historyPerJob());
    if (unholdable(key) != null) {
      return List.of();
    }
    return database.withHandle(
        "reading the history of job '" + key + "'", h -> runs.newest(h, key, rows));
  }

  // ---- backfill (see BackfillTable) ---------------------------------------------------------

  /** Locks the job's row first, so a concurrent delete cannot leave slots without their job. */
  @Override
  public int addBackfill(String key, List<Instant> fireTimes) {
    return database.inTransaction(
        "queueing " + fireTimes.size() + " backfill slot(s) of job '" + key + "'",
        h -> tables().jobs().find(h, key, true).isEmpty() ? 0 : backfill.add(h, key, fireTimes));
  }

  @Override
  public List<BackfillSlot> nextBackfill(int limit) {
    return database.withHandle(
        "reading the next backfill slots", h -> backfill.next(h, limit, this::badSlot));
  }

  @Override
  public boolean claimBackfill(String key, Instant fireTime, String instance) {
    return database.inTransaction(
        "claiming backfill slot " + fireTime + " of job '" + key + "'",
        h -> backfill.claim(h, key, fireTime, instance));
  }

  @Override
  public BackfillClaim claimBackfillWithin(
      String key, Instant fireTime, String instance, dev.kairos.ConcurrencyLimit limit) {
    return tables()
        .cluster()
        .claimBackfillWithin(key, fireTime, limit, h -> backfill.claim(h, key, fireTime, instance));
  }

  // ---- concurrent runs (Overlap.allow) -------------------------------------------------------

  /** True: concurrent runs are rows of kind RUN in {@code <prefix>backfill} (schema version 10). */
  @Override
  public boolean supportsConcurrentRuns() {
    return true;
  }

  /**
   * One transaction: the job's row locked and its version checked, its RUN rows counted, in cluster
   * mode the limit judged ({@link ClusterTable#full}, which locks the limit's row), the row moved
   * on ({@link JobTable#startConcurrent}, in cluster mode only if due by the database clock), then
   * the RUN row added.
   */
  @Override
  public ConcurrentRun.Answer startConcurrentRun(ConcurrentRun run) {
    return database.inTransaction(
        "starting a concurrent run of job '" + run.key() + "' (fire " + run.fire() + ")",
        h -> {
          Optional<JobRows.Row> row = tables().jobs().find(h, run.key(), true);
          if (row.isEmpty()
              || !row.get().readable()
              || row.get().version() != run.expectedVersion()) {
            return ConcurrentRun.Answer.refused(ConcurrentRun.Outcome.CHANGED);
          }
          if (backfill.runs(h, run.key()) >= run.maxRuns()) {
            return ConcurrentRun.Answer.refused(ConcurrentRun.Outcome.FULL);
          }
          if (run.cluster()
              && run.limit() != null
              && tables().cluster().limitFull(h, run.limit())) {
            return ConcurrentRun.Answer.refused(ConcurrentRun.Outcome.LIMIT_FULL);
          }
          if (!tables().jobs().startConcurrent(h, run, run.cluster())) {
            return ConcurrentRun.Answer.refused(ConcurrentRun.Outcome.NOT_DUE);
          }
          backfill.addRun(h, run.key(), run.fire(), run.instance());
          return new ConcurrentRun.Answer(
              ConcurrentRun.Outcome.STARTED, Optional.of(run.applyTo(row.get().record())));
        });
  }

  /** One transaction: the history row and the RUN row's deletion; nothing if the job is gone. */
  @Override
  public boolean finishConcurrentRun(RunRecord given, String instance) {
    JobRules.checkRun(given);
    RunRecord run = storable(given, database.textCharset());
    return database.inTransaction(
        "writing back concurrent run " + run.scheduledFireTime() + " of job '" + run.key() + "'",
        h -> {
          // Locked: a deletion of the job waits, then deletes this history row with the rest.
          if (tables().jobs().find(h, run.key(), true).isEmpty()) {
            return false;
          }
          insertTrimming(h, run);
          return backfill.deleteRun(h, run.key(), run.scheduledFireTime(), instance);
        });
  }

  /** One transaction: the history row and the slot done; nothing if the job is gone. */
  @Override
  public boolean finishBackfill(RunRecord given, String instance) {
    JobRules.checkRun(given);
    RunRecord run = storable(given, database.textCharset());
    return database.inTransaction(
        "writing back backfill slot " + run.scheduledFireTime() + " of job '" + run.key() + "'",
        h -> {
          // Locked: a deletion of the job waits, then deletes this history row with the rest.
          if (tables().jobs().find(h, run.key(), true).isEmpty()) {
            return false;
          }
          insertTrimming(h, run);
          return backfill.finish(h, run.key(), run.scheduledFireTime(), instance);
        });
  }

  /**
   * Adds a history row for a run written back apart from its job's own write-back (a concurrent
   * run, a backfill slot) and trims the job's history ({@link #trimRuns}) at once: such runs move
   * no run count to trim by, and a long backfill would grow the table meanwhile.
   */
  private void insertTrimming(Handle h, RunRecord run) throws SQLException {
    if (settings.historyPerJob() == 0) {
      return;
    }
    runs.insert(h, run);
    trimRuns(h, run.key(), true, run.end());
  }

  @Override
  public int releaseBackfill(Collection<String> live) {
    return database.inTransaction("releasing backfill claims", h -> backfill.release(h, live));
  }

  @Override
  public List<BackfillSlot> backfillSlots(String key) {
    if (unholdable(key) != null) {
      return List.of();
    }
    return database.withHandle(
        "reading the backfill slots of job '" + key + "'",
        h -> backfill.slots(h, key, this::badSlot));
  }

  /** Logs, once per key, a backfill row that cannot be read; it is skipped, never run. */
  private void badSlot(String key, String problem) {
    if (warnedSlots.add(key)) {
      log.warn(
          "job '{}': a backfill slot in table {}backfill cannot be read ({}); skipped, never run",
          key,
          settings.tablePrefix(),
          problem);
    }
  }

  // ---- cluster (see Cluster) -----------------------------------------------------------------

  /** True if built with {@code clustered(true)}. */
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

  /** Registered instances and their last heartbeat by the database clock, by id. */
  @Override
  public Map<String, Instant> instances() {
    return tables().cluster().instances();
  }

  @Override
  public Optional<Claimed> claim(JobRecord expected, String instance, Duration lease) {
    return tables().cluster().claim(expected, instance, lease);
  }

  @Override
  public List<Optional<Claimed>> claimAll(
      List<JobRecord> expected, String instance, Duration lease) {
    return tables().cluster().claimAll(expected, instance, lease);
  }

  @Override
  public LimitedClaim claimWithin(
      JobRecord expected, String instance, Duration lease, dev.kairos.ConcurrencyLimit limit) {
    return tables().cluster().claimWithin(expected, instance, lease, limit);
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
  public Overdue overdueJobs(Duration by, WindowCursor after, int limit) {
    return tables().cluster().overdueJobs(by, after, limit);
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
      // A failed batch may carry the statement's own error only as its next exception.
      for (SQLException s = t instanceof SQLException q ? q : null;
          s != null;
          s = s.getNextException()) {
        if (UNIQUE_VIOLATION.equals(s.getSQLState())
            || (s.getErrorCode() == MARIADB_DUPLICATE_KEY && "23000".equals(s.getSQLState()))) {
          return true;
        }
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

  // ---- calendars -----------------------------------------------------------------------------

  @Override
  public void putCalendar(String name, dev.kairos.BusinessCalendar calendar) {
    JobRules.checkCalendar(name, calendar);
    tables(); // opens the store
    String problem = unholdable(name);
    if (problem != null) {
      throw new IllegalArgumentException(
          "calendar '" + JobRules.printable(name) + "': name " + problem);
    }
    retryingInsertRace( // instances storing their calendars at start race on the name
        "storing calendar '" + JobRules.printable(name) + "'",
        h -> {
          calendarTable.put(h, name, calendar);
          return null;
        });
    warnedCalendars.remove(name);
  }

  @Override
  public java.util.SortedMap<String, dev.kairos.BusinessCalendar> calendars() {
    tables();
    return database.withHandle("reading calendars", h -> calendarTable.all(h, warnedCalendars));
  }

  /**
   * Locks the rows of the calendars the records are attached to (shared on PostgreSQL, so that
   * parallel bulk chunks on one calendar do not wait for each other), in name order, before any job
   * row (every transaction that locks both goes calendar first), so that a racing {@link
   * #deleteCalendar} either waits for this transaction and then finds its jobs, or has committed
   * and this one is refused: no job is attached to a calendar that is gone.
   *
   * @throws IllegalStateException naming a job and its calendar, if that calendar is not stored
   */
  private void lockCalendars(Handle h, List<JobRecord> records) {
    java.util.TreeMap<String, String> firstUser = new java.util.TreeMap<>();
    for (JobRecord r : records) {
      r.spec().calendar().ifPresent(c -> firstUser.putIfAbsent(c, r.key()));
    }
    for (Map.Entry<String, String> e : firstUser.entrySet()) {
      if (!calendarTable.lock(h, database.dialect(), e.getKey())) {
        throw JobRules.calendarGone(e.getValue(), e.getKey());
      }
    }
  }

  @Override
  public boolean deleteCalendar(String name) {
    if (unholdable(name) != null) {
      return false; // no such calendar can be stored
    }
    tables();
    Dialect d = database.dialect();
    return database.inTransactionJoining(
        "deleting calendar '" + JobRules.printable(name) + "'",
        (h, joined) -> {
          if (joined) {
            refuseSnapshotLevel(h, d, name);
          }
          // The calendar's row locked first: the lock waits for the upserts that hold it (see
          // lockCalendars) and keeps new ones out, and the look for its users, a later statement,
          // sees their jobs (at READ COMMITTED, or through a locking read on MariaDB and MySQL,
          // which reads the newest rows at any level). Nothing is deleted before the look: in the
          // application's transaction a refusal rolls nothing back, and a caller that goes on
          // after it must not commit a deleted calendar that jobs use.
          calendarTable.lockForDelete(h, name);
          List<String> users = calendarTable.users(h, d, name);
          if (!users.isEmpty()) {
            throw JobRules.calendarInUse(name, users);
          }
          return calendarTable.delete(h, name);
        });
  }

  /**
   * Refuses to delete a calendar inside the application's transaction at REPEATABLE READ on
   * PostgreSQL or H2 (and at SERIALIZABLE on H2): there the look for the calendar's users reads the
   * transaction's snapshot, which misses a job another caller attached after it was taken, and the
   * calendar would be deleted under that job. PostgreSQL's SERIALIZABLE detects the conflict and
   * rolls one of them back; MariaDB and MySQL look with a locking read.
   */
  private static void refuseSnapshotLevel(Handle h, Dialect d, String name) throws SQLException {
    if (d.mysqlFamily()) {
      return;
    }
    int level = h.getConnection().getTransactionIsolation();
    boolean snapshot =
        level == java.sql.Connection.TRANSACTION_REPEATABLE_READ
            || (d == Dialect.H2 && level == java.sql.Connection.TRANSACTION_SERIALIZABLE);
    if (snapshot) {
      throw new IllegalStateException(
          "cannot delete calendar '"
              + JobRules.printable(name)
              + "' inside a transaction at "
              + Database.levelName(level)
              + ": its snapshot would miss jobs attached to the calendar meanwhile; delete it"
              + " outside the transaction or in one at READ COMMITTED");
    }
  }

  /** Names the database and the table prefix, as the scheduler's start-up log shows it. */
  @Override
  public String toString() {
    return "JdbcStore[" + database + ", prefix " + settings.tablePrefix() + "]";
  }
}
