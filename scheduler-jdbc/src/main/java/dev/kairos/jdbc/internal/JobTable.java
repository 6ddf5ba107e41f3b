package dev.kairos.jdbc.internal;

import static dev.kairos.jdbc.internal.Values.decimal;

import dev.kairos.spi.JobRecord;
import dev.kairos.spi.WindowCursor;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL of the {@code <prefix>jobs} table. Every method runs on the caller's handle, inside the
 * caller's transaction; none commits.
 *
 * <p>Every write of a row's definition or schedule state also stamps it for the change feed ({@link
 * ChangeFeed}): {@code change_seq} from the sequence ({@link ChangeStamps} on MySQL), {@code
 * changed_at} by the database clock. The stamp is set by the last statement of a transaction where
 * it can be, so the sequence value is taken as close to the commit as possible. {@link #runStarted}
 * does not stamp: it changes neither definition nor schedule state, and is not used in cluster
 * mode.
 */
public final class JobTable {
  private static final Logger log = LoggerFactory.getLogger(JobTable.class);

  private final String select;
  private final String selectForUpdate;
  private final String selectAll;
  private final String dueFirst;
  private final String dueAfter;
  private final String insert;
  private final String insertIfAbsent;
  private final String updateDefinition;
  private final String replace;
  private final String runStarted;
  private final String markRunning;
  private final String unmarkRunning;
  private final String runFinished;
  private final String runFinishedKeepingClaim;
  private final String delete;
  private final String startConcurrent;
  private final String startConcurrentIfDue;
  private final String selectIn;
  private final PositionalBatch.Sql insertRows;
  private final PositionalBatch.Sql updateDefinitionRows;
  private final PositionalBatch.Sql runFinishedRows;
  private final PositionalBatch.Sql runFinishedKeepingClaimRows;
  private final ChangeStamps stamps;
  private final Dialect dialect;

  /** The statements for the tables with this (validated) prefix in this dialect. */
  public JobTable(String prefix, Dialect dialect) {
    String table = prefix + "jobs";
    this.dialect = dialect;
    stamps = new ChangeStamps(prefix, dialect);
    String stamp =
        ", change_seq = " + dialect.nextChange(prefix) + ", changed_at = " + dialect.now();
    List<String> definition =
        Stream.concat(SpecColumns.COLUMNS.stream(), JobRows.SCHEDULE.stream()).toList();
    List<String> all =
        Stream.of(definition, JobRows.STATS).flatMap(List::stream).collect(Collectors.toList());
    String dueOrder = " ORDER BY due_time, job_key LIMIT :limit";
    select = "SELECT * FROM " + table + " WHERE job_key = :key";
    selectForUpdate = select + " FOR UPDATE";
    selectAll = "SELECT * FROM " + table + " ORDER BY job_key";
    dueFirst =
        "SELECT * FROM " + table + " WHERE due_time IS NOT NULL AND due_time < :before" + dueOrder;
    dueAfter =
        "SELECT * FROM "
            + table
            + " WHERE due_time IS NOT NULL AND due_time < :before"
            + " AND due_time >= :after" // redundant, but it starts the index scan at the cursor
            + " AND (due_time > :after OR (due_time = :after AND job_key > :after_key))"
            + dueOrder;
    insert =
        "INSERT INTO "
            + table
            + " (job_key, version, "
            + String.join(", ", all)
            + ", change_seq, changed_at) VALUES (:key, :version, :"
            + String.join(", :", all)
            + ", "
            + dialect.nextChange(prefix)
            + ", "
            + dialect.now()
            + ")";
    insertIfAbsent = insert + " ON CONFLICT (job_key) DO NOTHING"; // PostgreSQL's syntax
    updateDefinition =
        "UPDATE " + table + " SET " + assignments(definition) + ", version = :version" + stamp;
    replace = updateDefinition + " WHERE job_key = :key AND version = :expected";
    runStarted =
        "UPDATE "
            + table
            + " SET state = CASE WHEN state = 'SCHEDULED' THEN 'RUNNING' ELSE state END,"
            + " last_start = :start WHERE job_key = :key";
    // The state test stays out of WHERE: with it, PostgreSQL's generic plan for a table not yet
    // analyzed scans the (state, owner) index over every SCHEDULED row to find one key.
    markRunning =
        "UPDATE "
            + table
            + " SET state = CASE WHEN state = 'SCHEDULED' THEN 'RUNNING' ELSE state END"
            + " WHERE job_key = :key AND version = :version";
    unmarkRunning =
        "UPDATE "
            + table
            + " SET state = CASE WHEN state = 'RUNNING' THEN 'SCHEDULED' ELSE state END"
            + " WHERE job_key = :key AND version = :version";
    String finished =
        "UPDATE "
            + table
            + " SET "
            + assignments(JobRows.SCHEDULE)
            + ", "
            + assignments(JobRows.STATS)
            + ", version = :version"
            + stamp;
    runFinishedKeepingClaim = finished + " WHERE job_key = :key";
    runFinished =
        finished
            + ", owner = NULL, lease_until = NULL, claimed_fire = NULL, recovery = NULL"
            + " WHERE job_key = :key";
    delete = "DELETE FROM " + table + " WHERE job_key = :key";
    startConcurrent =
        "UPDATE "
            + table
            + " SET state = :state, next_fire_time = :next_fire_time, due_time = :due_time,"
            + " due_kind = :due_kind, attempt = 1, last_scheduled_fire_time = :fire,"
            + " last_start = :start, run_count = run_count + 1, version = :version,"
            + " owner = NULL, lease_until = NULL, claimed_fire = NULL, recovery = NULL"
            + stamp
            + " WHERE job_key = :key AND version = :expected";
    startConcurrentIfDue = startConcurrent + " AND due_time <= " + dialect.now();
    selectIn = "SELECT * FROM " + table + " WHERE job_key IN (";
    insertRows = PositionalBatch.Sql.of(insert);
    updateDefinitionRows = PositionalBatch.Sql.of(updateDefinition + " WHERE job_key = :key");
    runFinishedRows = PositionalBatch.Sql.of(runFinished);
    runFinishedKeepingClaimRows = PositionalBatch.Sql.of(runFinishedKeepingClaim);
  }

  private static String assignments(List<String> columns) {
    return columns.stream().map(c -> c + " = :" + c).collect(Collectors.joining(", "));
  }

  /** The job's row, locked until the transaction ends if {@code forUpdate}. */
  public Optional<JobRows.Row> find(Handle h, String key, boolean forUpdate) {
    return h.createQuery(forUpdate ? selectForUpdate : select)
        .bind("key", key)
        .map((rs, ctx) -> JobRows.read(rs))
        .findOne();
  }

  /** Every row, by key. */
  public List<JobRows.Row> findAll(Handle h) {
    return h.createQuery(selectAll).map((rs, ctx) -> JobRows.read(rs)).list();
  }

  /**
   * At most {@code limit} rows due before {@code before}, strictly after {@code after} (null: from
   * the start) in (due time, key) order; a keyset query on the (due_time, job_key) index. Without
   * the redundant {@code due_time >= :after}, PostgreSQL 15 scans the index from its start and
   * filters: 126 ms instead of 1 ms for a page deep in 200,000 rows.
   */
  public List<JobRows.Row> due(Handle h, WindowCursor after, Instant before, int limit) {
    var q = h.createQuery(after == null ? dueFirst : dueAfter);
    if (after != null) {
      q.bind("after", decimal(after.dueTime())).bind("after_key", after.key());
    }
    return q.bind("before", decimal(before))
        .bind("limit", limit)
        .map((rs, ctx) -> JobRows.read(rs))
        .collect(Collectors.toCollection(ArrayList::new));
  }

  /** Inserts the record with its version. */
  public void insert(Handle h, JobRecord r) throws SQLException {
    insertBound(h, insert, r).execute();
  }

  /** {@code sql} (an insert of a whole row) with {@code r}'s columns and change stamp bound. */
  private org.jdbi.v3.core.statement.Update insertBound(Handle h, String sql, JobRecord r)
      throws SQLException {
    var u = h.createUpdate(sql).bind("key", r.key()).bind("version", r.version());
    JobRows.bindAll(Columns.of(u), r);
    return stamps.on(h).bind(u);
  }

  /**
   * PostgreSQL only: {@link #insert}s {@code r} unless a row has its key ({@code ON CONFLICT
   * (job_key) DO NOTHING}, which waits for an uncommitted insert of the key and then finds it).
   *
   * @return true if the row was inserted
   */
  public boolean insertIfAbsent(Handle h, JobRecord r) throws SQLException {
    if (dialect != Dialect.POSTGRESQL) {
      throw new IllegalStateException("insertIfAbsent is PostgreSQL's: " + dialect);
    }
    return insertBound(h, insertIfAbsent, r).execute() == 1;
  }

  /** Sets the definition and schedule state of {@code r}'s row, and {@code r}'s version. */
  public void updateDefinition(Handle h, JobRecord r) throws SQLException {
    var u =
        h.createUpdate(updateDefinition + " WHERE job_key = :key")
            .bind("key", r.key())
            .bind("version", r.version());
    SpecColumns.bind(Columns.of(u), r.spec());
    JobRows.bindSchedule(Columns.of(u), r);
    stamps.on(h).bind(u).execute();
  }

  /** Like {@link #updateDefinition} if the row has version {@code expected}; false if not. */
  public boolean replace(Handle h, JobRecord r, long expected) throws SQLException {
    var u =
        h.createUpdate(replace)
            .bind("key", r.key())
            .bind("version", expected + 1)
            .bind("expected", expected);
    SpecColumns.bind(Columns.of(u), r.spec());
    JobRows.bindSchedule(Columns.of(u), r);
    return stamps.on(h).bind(u).execute() == 1;
  }

  /** Marks a run started: RUNNING unless not SCHEDULED, and the start; the version is kept. */
  public void runStarted(Handle h, String key, Instant start) {
    h.createUpdate(runStarted).bind("key", key).bind("start", decimal(start)).execute();
  }

  /** {@link #runStarted} for several runs, in one batch. */
  public void runsStarted(Handle h, java.util.List<StartMarks.Mark> marks) {
    var batch = h.prepareBatch(runStarted);
    for (StartMarks.Mark m : marks) {
      batch.bind("key", m.key()).bind("start", decimal(m.start())).add();
    }
    int[] counts = batch.execute();
    if (log.isTraceEnabled()) {
      for (int i = 0; i < counts.length; i++) {
        log.trace("job '{}': start mark by key: {} row(s)", marks.get(i).key(), counts[i]);
      }
    }
  }

  /**
   * Sets each marked row that is SCHEDULED at the mark's version to RUNNING ({@code running}), or
   * each that is RUNNING at that version back to SCHEDULED; one batched statement, in the order
   * given (the caller sorts by key).
   */
  public void markRunning(Handle h, List<dev.kairos.spi.StartMark> marks, boolean running) {
    var batch = h.prepareBatch(running ? markRunning : unmarkRunning);
    for (dev.kairos.spi.StartMark m : marks) {
      batch.bind("key", m.key()).bind("version", m.version()).add();
    }
    int[] counts = batch.execute();
    if (log.isTraceEnabled()) {
      for (int i = 0; i < counts.length; i++) {
        log.trace(
            "job '{}': {} at version {}: {} row(s)",
            marks.get(i).key(),
            running ? "start mark" : "start mark undone",
            marks.get(i).version(),
            counts[i]);
      }
    }
  }

  /**
   * Sets the schedule state, statistics and version of each record's row, and ends its claim unless
   * {@code keepClaim} (another instance's claim that a stale write-back must not end); one batched
   * statement, in the order given.
   */
  public void runsFinished(Handle h, List<JobRecord> records, boolean keepClaim)
      throws SQLException {
    batch(
        h,
        keepClaim ? runFinishedKeepingClaimRows : runFinishedRows,
        records,
        (row, r) -> {
          JobRows.bindSchedule(row, r);
          JobRows.bindStats(row, r);
        });
  }

  /**
   * Moves the job's schedule on as a concurrent run starts ({@code JobStore.startConcurrentRun}):
   * the run's state, the run counted, the last start, a claim released, the version set to {@code
   * expected + 1}; only at {@code expected}, and with {@code ifDue} only if the job is due by the
   * database clock. True if the row was updated.
   */
  public boolean startConcurrent(Handle h, dev.kairos.spi.ConcurrentRun run, boolean ifDue) {
    var next = run.next();
    var u =
        h.createUpdate(ifDue ? startConcurrentIfDue : startConcurrent)
            .bind("key", run.key())
            .bind("expected", run.expectedVersion())
            .bind("version", run.expectedVersion() + 1)
            .bind("state", next.state().name())
            .bind("next_fire_time", Values.decimal(next.nextFireTime()))
            .bind("due_time", Values.decimal(next.dueTime()))
            .bind("due_kind", next.dueKind().name())
            .bind("fire", Values.decimal(run.fire()))
            .bind("start", Values.decimal(run.start()));
    return stamps.on(h).bind(u).execute() == 1;
  }

  /** Deletes the job's row; false if there was none. */
  public boolean delete(Handle h, String key) {
    return h.createUpdate(delete).bind("key", key).execute() == 1;
  }

  // ---- bulk writes (JdbcJobStore.upsertAll, deleteAll) ----------------------------------------

  /** Keys per {@code IN} list: far below every database's limit on bind parameters. */
  static final int KEYS_PER_QUERY = 1000;

  /**
   * From this many keys on, a PostgreSQL look-up is planned with its values and without sequential
   * scans ({@code force_custom_plan}, {@code enable_seqscan = off}, for the transaction, reset
   * after): a look-up of up to 1,000 primary keys is always best done through the index, but on a
   * table not yet analyzed the planner judged it small and chose a sequential scan, kept in the
   * cached plan as the table grew. Each look-up then read the whole table: {@code scheduleAll} of
   * 100,000 jobs ran at about 1,000 jobs/s instead of 12,000 ({@code pg_stat_user_tables} showed
   * sequential scans only). Small look-ups (write-backs) are left to the planner.
   */
  static final int CUSTOM_PLAN_KEYS = 100;

  /**
   * The rows of these keys (those that exist), locked until the transaction ends if {@code
   * forUpdate}; one query per {@value #KEYS_PER_QUERY} keys.
   */
  public List<JobRows.Row> findAll(Handle h, List<String> keys, boolean forUpdate)
      throws SQLException {
    boolean customPlans =
        dialect == Dialect.POSTGRESQL && keys.size() >= CUSTOM_PLAN_KEYS && h.isInTransaction();
    if (customPlans) {
      h.execute("SET LOCAL plan_cache_mode = force_custom_plan; SET LOCAL enable_seqscan = off");
    }
    List<JobRows.Row> out = new ArrayList<>(keys.size());
    for (int from = 0; from < keys.size(); from += KEYS_PER_QUERY) {
      List<String> part = keys.subList(from, Math.min(keys.size(), from + KEYS_PER_QUERY));
      if (part.size() <= FEW_KEYS) { // a write-back batch: on the fire path, straight through JDBC
        PositionalBatch.PerCount few = forUpdate ? fewKeysLocked : fewKeys;
        try (PositionalBatch q = few.get(part.size()).prepare(h, dialect)) {
          for (int i = 0; i < part.size(); i++) {
            q.text("k" + i, part.get(i));
          }
          out.addAll(q.query(JobRows::read));
        }
        continue;
      }
      keysQuery(h, selectIn, part, forUpdate ? ") ORDER BY job_key FOR UPDATE" : ")") // key order
          .map((rs, ctx) -> JobRows.read(rs))
          .forEach(out::add);
    }
    if (customPlans) {
      h.execute("SET LOCAL plan_cache_mode TO DEFAULT; SET LOCAL enable_seqscan TO DEFAULT");
    }
    return out;
  }

  /** The most keys {@link #findAll} reads through {@link PositionalBatch#query}. */
  static final int FEW_KEYS = 64;

  /** {@link #findAll}'s statements for 1 to {@value #FEW_KEYS} keys, made when first needed. */
  private final PositionalBatch.PerCount fewKeys =
      new PositionalBatch.PerCount(FEW_KEYS, n -> fewKeysText(n) + ")");

  /** {@link #fewKeys} locking the rows, in key order. */
  private final PositionalBatch.PerCount fewKeysLocked =
      new PositionalBatch.PerCount(FEW_KEYS, n -> fewKeysText(n) + ") ORDER BY job_key FOR UPDATE");

  private String fewKeysText(int n) {
    return selectIn + PositionalBatch.parameters("k", n);
  }

  /** {@code head}, a parameter per key (bound), then {@code tail}: a query on an IN list. */
  static org.jdbi.v3.core.statement.Query keysQuery(
      Handle h, String head, List<String> keys, String tail) {
    StringBuilder sql = new StringBuilder(head);
    for (int i = 0; i < keys.size(); i++) {
      sql.append(i == 0 ? ":k" : ", :k").append(i);
    }
    var q = h.createQuery(sql.append(tail).toString());
    for (int i = 0; i < keys.size(); i++) {
      q.bind("k" + i, keys.get(i));
    }
    return q;
  }

  /** {@link #insert} of each record, in one batch. */
  public void insertAll(Handle h, List<JobRecord> records) throws SQLException {
    batch(h, insertRows, records, JobRows::bindAll);
  }

  /** {@link #updateDefinition} of each record, in one batch. */
  public void updateDefinitions(Handle h, List<JobRecord> records) throws SQLException {
    batch(
        h,
        updateDefinitionRows,
        records,
        (row, r) -> {
          SpecColumns.bind(row, r.spec());
          JobRows.bindSchedule(row, r);
        });
  }

  /** The columns of one record's row, other than its key, version and change stamp. */
  @FunctionalInterface
  private interface RowColumns {
    void bind(Columns row, JobRecord r) throws SQLException;
  }

  /**
   * Runs {@code sql} once per record, in one batch: each row binds the record's key and version,
   * then {@code columns}, then the next change stamp (on MySQL).
   */
  private void batch(Handle h, PositionalBatch.Sql sql, List<JobRecord> records, RowColumns columns)
      throws SQLException {
    if (records.isEmpty()) {
      return;
    }
    ChangeStamps.Source stamp = stamps.on(h);
    try (var batch = sql.prepare(h, dialect)) {
      for (JobRecord r : records) {
        batch.text("key", r.key()).bigint("version", r.version());
        columns.bind(batch, r);
        stamp.bind(batch);
        batch.add();
      }
      batch.execute();
    }
  }

  /**
   * {@link #delete} of each key that has a row, in one batch; returns those keys. (The rows are
   * read first: some drivers do not report a batch's update counts.)
   */
  public List<String> deleteAll(Handle h, List<String> keys) throws SQLException {
    List<String> existing = new ArrayList<>();
    for (JobRows.Row row : findAll(h, keys, true)) {
      existing.add(row.key());
    }
    if (!existing.isEmpty()) {
      var batch = h.prepareBatch(delete);
      for (String key : existing) {
        batch.bind("key", key).add();
      }
      batch.execute();
    }
    return existing;
  }
}
