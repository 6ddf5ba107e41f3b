package dev.kairos.jdbc.internal;

import static dev.kairos.jdbc.internal.Values.decimal;
import static dev.kairos.jdbc.internal.Values.instant;
import static dev.kairos.jdbc.internal.Values.seconds;

import dev.kairos.spi.JobRecord;
import dev.kairos.spi.WindowCursor;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * The SQL of cluster mode: claims and leases on the {@code <prefix>jobs} rows (columns {@code
 * owner}, {@code lease_until}, {@code claimed_fire}, {@code recovery}) and the {@code
 * <prefix>instances} table. Every method runs on the caller's handle.
 *
 * <h2>Design notes</h2>
 *
 * <p>A claim is one conditional UPDATE of the job's row: it succeeds only if the row still has the
 * version and due time the claiming instance queued it with (or is RUNNING: a recovery) and no live
 * lease is held on it. Lease expiry is judged by the database clock inside the statement ({@link
 * Dialect#now()}), never by an instance's clock. Concurrent claims of one row serialize on its row
 * lock; the losers re-evaluate the condition on the winner's row and update nothing. The UPDATE
 * also bumps the version, so a loser's stale write-back can never overwrite the winner's schedule
 * state. The claim is a recovery if the row was RUNNING or still held a claim of the fire now
 * claimed (its lease lapsed without a write-back: that run may have started, though a change made
 * during it, such as a {@code pause()} and {@code resume()}, left the row SCHEDULED; a trigger made
 * during it is another fire); since an UPDATE's SET expressions read the old row (MySQL's too, the
 * assignment being the first), the statement stores it in {@code recovery}, whence PostgreSQL
 * returns it with the row ({@code RETURNING *}) and H2 re-reads it.
 *
 * <p>A claim under a concurrency limit ({@link #claimWithin}) first locks the limit's row in {@code
 * <prefix>limits} ({@code SELECT ... FOR UPDATE}), so that claims of one limit, from every
 * instance, are judged one at a time; then counts the live leases (by the database clock) of other
 * jobs of the limit's handlers and the RUNNING backfill slots of their jobs; then claims as above,
 * all in one transaction. A backfill slot's claim under a limit is judged the same way ({@link
 * #full}, then the slot's compare-and-set in the same transaction). Under READ COMMITTED (and
 * InnoDB's REPEATABLE READ, whose snapshot is taken at the first plain read, after the lock) the
 * count therefore sees every claim of the limit committed before the lock was granted: two claims
 * cannot both take the last permit. A write-back or an expiring lease only lowers the count, so it
 * needs no lock.
 */
public final class ClusterTable {

  private final Dialect dialect;
  private final String claim;

  /** The claim's {@code UPDATE ... SET ...} and its {@code WHERE ...} (see {@link #claim}). */
  private final String claimSet;

  private final String claimWhere;

  /** The claim returning the claimed row, for a dialect whose UPDATE returns rows. */
  private final PositionalBatch.Sql claimReturning;

  /** {@link #claimAllReturning}'s statement for each number of fires, made when first needed. */
  private final PositionalBatch.PerCount claimAllReturning =
      new PositionalBatch.PerCount(MAX_BATCH, this::claimAllReturningSql);

  /** The most fires {@link #claimAllReturning} keeps a statement for; more build one per call. */
  static final int MAX_BATCH = 64;

  private final String jobsTable;
  private final String select;
  private final String ownClaim;
  private final String selectOwned;
  private final String lockKeys;
  private final String renew;
  private final String release;
  private final String expired;
  private final String overdue;
  private final String overdueAfter;
  private final String registerAgain;
  private final String register;
  private final String heartbeat;
  private final String deregister;
  private final String trimInstances;
  private final String instances;
  private final String liveInstances;
  private final ChangeStamps stamps;
  private final String lockLimit;
  private final String insertLimit;
  private final String liveInLimit;
  private final String runningInLimit;

  /** The statements for the tables with this (validated) prefix in this dialect. */
  public ClusterTable(String prefix, Dialect dialect) {
    this.dialect = dialect;
    this.stamps = new ChangeStamps(prefix, dialect);
    String jobs = prefix + "jobs";
    String table = prefix + "instances";
    String now = dialect.now();
    claimSet =
        "UPDATE "
            + jobs
            + " SET recovery = (state = 'RUNNING'"
            + " OR (owner IS NOT NULL AND claimed_fire = due_time)),"
            + " state = CASE WHEN state = 'PAUSED' THEN 'PAUSED' ELSE 'RUNNING' END,"
            + " version = version + 1, owner = :instance, lease_until = "
            + now
            + " + :lease, claimed_fire = due_time, last_start = "
            + now
            + ", change_seq = "
            + dialect.nextChange(prefix)
            + ", changed_at = "
            + now;
    claimWhere =
        " WHERE job_key = :key AND version = :version"
            + " AND (due_time = :due OR state = 'RUNNING')"
            + " AND (state = 'RUNNING' OR due_time <= "
            + now
            + ")"
            + " AND (owner IS NULL OR lease_until <= "
            + now
            + ")";
    claim = claimSet + claimWhere;
    claimReturning = PositionalBatch.Sql.of(claim + " RETURNING *");
    jobsTable = jobs;
    select = "SELECT * FROM " + jobs + " WHERE job_key = :key";
    lockLimit = "SELECT limit_name FROM " + prefix + "limits WHERE limit_name = :name FOR UPDATE";
    insertLimit = "INSERT INTO " + prefix + "limits (limit_name) VALUES (:name)";
    liveInLimit =
        "SELECT COUNT(*) FROM "
            + jobs
            + " WHERE lease_until > "
            + now
            + " AND owner IS NOT NULL AND job_key <> :key AND handler IN (";
    runningInLimit =
        "SELECT COUNT(*) FROM "
            + prefix
            + "backfill b JOIN "
            + jobs
            + " j ON j.job_key = b.job_key WHERE b.state = 'RUNNING' AND j.handler IN (";
    ownClaim = select + " AND owner = :instance AND version = :version AND claimed_fire = :due";
    selectOwned = "SELECT * FROM " + jobs + " WHERE owner = :instance AND job_key IN (";
    lockKeys = "SELECT job_key FROM " + jobs + " WHERE job_key IN (";
    renew =
        "UPDATE "
            + jobs
            + " SET lease_until = "
            + now
            + " + :lease WHERE job_key = :key AND owner = :instance AND claimed_fire = :fire";
    release =
        "UPDATE "
            + jobs
            + " SET state = CASE WHEN state = 'RUNNING' THEN 'SCHEDULED' ELSE state END,"
            + " owner = NULL, lease_until = NULL, claimed_fire = NULL, recovery = NULL,"
            + " change_seq = "
            + dialect.nextChange(prefix)
            + ", changed_at = "
            + now
            + " WHERE job_key = :key AND owner = :instance AND claimed_fire = :fire";
    expired =
        "SELECT * FROM "
            + jobs
            + " WHERE (state = 'RUNNING' AND owner IS NULL) OR (lease_until <= "
            + now
            + " AND due_time IS NOT NULL) ORDER BY job_key LIMIT :limit";
    String unclaimedOverdue =
        "SELECT * FROM "
            + jobs
            + " WHERE due_time IS NOT NULL AND due_time <= "
            + now
            + " - :by AND state <> 'RUNNING' AND lease_until IS NULL";
    String dueOrder = " ORDER BY due_time, job_key LIMIT :limit";
    overdue = unclaimedOverdue + dueOrder;
    overdueAfter = // the redundant >= starts the index scan at the cursor, as JobTable's window
        unclaimedOverdue
            + " AND due_time >= :after"
            + " AND (due_time > :after OR (due_time = :after AND job_key > :after_key))"
            + dueOrder;
    registerAgain =
        "UPDATE "
            + table
            + " SET started = "
            + now
            + ", last_heartbeat = "
            + now
            + " WHERE instance = :instance";
    register =
        "INSERT INTO "
            + table
            + " (instance, started, last_heartbeat) VALUES (:instance, "
            + now
            + ", "
            + now
            + ")";
    heartbeat = "UPDATE " + table + " SET last_heartbeat = " + now + " WHERE instance = :instance";
    deregister = "DELETE FROM " + table + " WHERE instance = :instance";
    trimInstances = "DELETE FROM " + table + " WHERE last_heartbeat < " + now + " - :stale";
    instances = "SELECT instance, last_heartbeat FROM " + table + " ORDER BY instance";
    liveInstances =
        "SELECT instance FROM "
            + table
            + " WHERE last_heartbeat >= "
            + now
            + " - :within ORDER BY instance";
  }

  /** A won claim: the row as claimed, and whether it recovers an expired claim. */
  public record Claim(JobRows.Row row, boolean recovery) {}

  /**
   * Claims {@code expected}'s fire for {@code instance} (see the design notes). On H2 it takes two
   * statements, so call it in a transaction.
   */
  public Optional<Claim> claim(Handle h, JobRecord expected, String instance, Duration lease)
      throws SQLException {
    if (expected.dueTime() == null) {
      return Optional.empty();
    }
    if (dialect.updateReturns()) { // no stamp to bind: the dialect's stamp is a SQL expression
      try (PositionalBatch q = claimReturning.prepare(h, dialect)) {
        q.text("key", expected.key())
            .bigint("version", expected.version())
            .number("due", decimal(expected.dueTime()))
            .text("instance", instance)
            .number("lease", seconds(lease));
        return q.query(ClusterTable::claimed).stream().findFirst();
      }
    }
    int updated =
        stamps.on(h).bind(bindClaim(h.createUpdate(claim), expected, instance, lease)).execute();
    return updated == 0
        ? Optional.empty()
        : h.createQuery(select).bind("key", expected.key()).map((rs, ctx) -> claimed(rs)).findOne();
  }

  /** The answer of {@link #claimWithin}: a claim won or lost, or refused by the full limit. */
  public record LimitedClaim(Optional<Claim> claim, boolean full) {}

  /**
   * Claims {@code expected}'s fire as {@link #claim} does if fewer than {@code permits} other jobs
   * of {@code handlers} hold a live lease (see the design notes). Call in a transaction.
   */
  public LimitedClaim claimWithin(
      Handle h,
      JobRecord expected,
      String instance,
      Duration lease,
      dev.kairos.ConcurrencyLimit limit)
      throws SQLException {
    if (expected.dueTime() == null) {
      return new LimitedClaim(Optional.empty(), false);
    }
    if (full(h, expected.key(), limit)) {
      return new LimitedClaim(Optional.empty(), true);
    }
    return new LimitedClaim(claim(h, expected, instance, lease), false);
  }

  /**
   * Locks the limit's row (adding it if missing) and tells whether the limit is full: whether
   * {@code limit.permits()} runs of its handlers are live, counting the leases of jobs other than
   * {@code key} and the RUNNING backfill slots. Call in a transaction; a claim made in the same
   * transaction is judged against this count.
   *
   * @param key the job whose own lease is not counted, or "" to count every job's
   */
  public boolean full(Handle h, String key, dev.kairos.ConcurrencyLimit limit) {
    if (!lockLimit(h, limit.name())) {
      h.createUpdate(insertLimit).bind("name", limit.name()).execute(); // a race fails the call
      lockLimit(h, limit.name());
    }
    return live(h, key, limit.handlers()) >= limit.permits();
  }

  /** Locks the limit's row for the transaction; false if it does not exist. */
  private boolean lockLimit(Handle h, String name) {
    return h.createQuery(lockLimit).bind("name", name).mapTo(String.class).findOne().isPresent();
  }

  /**
   * Adds the limit's row if it is missing, in the caller's transaction (a concurrent insert of the
   * same name fails it with a duplicate key; then the row exists).
   */
  public void ensureLimit(Handle h, String name) {
    if (h.createQuery(lockLimit.replace(" FOR UPDATE", ""))
        .bind("name", name)
        .mapTo(String.class)
        .findOne()
        .isEmpty()) {
      h.createUpdate(insertLimit).bind("name", name).execute();
    }
  }

  /**
   * How many runs of these handlers are live: jobs other than {@code key} holding a live lease, and
   * RUNNING backfill slots of the handlers' jobs. One query.
   */
  private int live(Handle h, String key, java.util.Set<String> handlers) {
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < handlers.size(); i++) {
      in.append(i == 0 ? ":h" : ", :h").append(i);
    }
    String sql = "SELECT (" + liveInLimit + in + ")) + (" + runningInLimit + in + ")) AS live_runs";
    var q = h.createQuery(sql).bind("key", key);
    int i = 0;
    for (String handler : handlers) {
      q.bind("h" + i++, handler);
    }
    return q.mapTo(Integer.class).one();
  }

  /**
   * Claims several fires (of distinct jobs) for {@code instance} in one batched UPDATE, rows in key
   * order, then reads the won rows back in one SELECT; answers in the order given. Call in a
   * transaction.
   *
   * <p>With more than one fire, the rows are locked first, in key order, by one {@code SELECT … FOR
   * UPDATE SKIP LOCKED}, and only the rows it locked are claimed: a row another transaction holds
   * (an application's transaction that changed the job on another instance and stays open, a bulk
   * upsert, a rival's claim) is answered "not claimed" at once, its row untouched, instead of
   * holding up every other fire of the batch until that transaction ends. The engine then claims
   * that fire again alone ({@link #claim}, which waits for the row's lock and so learns the
   * outcome: a fire whose holder rolls back is still run). Locking first also keeps the change
   * stamps together: they are taken once every claimed row is held, within milliseconds of the
   * commit (a stamp committed more than {@link ChangeFeed#SETTLE} after it was taken is never
   * delivered by the feed). One fire needs no such statement: its UPDATE waits for the row alone.
   * (Its stamp may then date from before the wait: PostgreSQL keeps the values it computed when the
   * holder only locked the row or rolled back. A claim the feed skips for that costs another
   * instance at most a lost claim of that fire; the run's write-back is stamped afresh.) On
   * PostgreSQL, {@link #claimAllReturning} does the same in one statement.
   */
  public List<Optional<Claim>> claimAll(
      Handle h, List<JobRecord> expected, String instance, Duration lease) {
    List<Integer> order = dueInKeyOrder(expected);
    List<Optional<Claim>> out =
        new java.util.ArrayList<>(java.util.Collections.nCopies(expected.size(), Optional.empty()));
    if (order.isEmpty()) {
      return out;
    }
    if (order.size() > 1) {
      java.util.Set<String> locked =
          lockInKeyOrder(h, order.stream().map(i -> expected.get(i).key()).toList());
      order.removeIf(i -> !locked.contains(expected.get(i).key()));
      if (order.isEmpty()) {
        return out;
      }
    }
    PreparedBatch batch = h.prepareBatch(claim);
    ChangeStamps.Source stamp = stamps.on(h);
    for (int i : order) {
      stamp.bind(bindClaim(batch, expected.get(i), instance, lease)).add();
    }
    int[] updated = batch.execute();
    List<String> won = new java.util.ArrayList<>();
    Map<String, Integer> index = new java.util.HashMap<>();
    for (int j = 0; j < order.size(); j++) {
      if (updated[j] != 0) { // 1, or SUCCESS_NO_INFO: the SELECT below decides
        String key = expected.get(order.get(j)).key();
        won.add(key);
        index.put(key, order.get(j));
      }
    }
    if (won.isEmpty()) {
      return out;
    }
    JobTable.keysQuery(h, selectOwned, won, ")")
        .bind("instance", instance)
        .map((rs, ctx) -> claimed(rs))
        .forEach(
            c -> {
              Integer i = index.get(c.row().key());
              JobRecord e = i == null ? null : expected.get(i);
              if (e != null && c.row().version() == e.version() + 1) {
                out.set(i, Optional.of(c));
              }
            });
    return out;
  }

  /**
   * The positions in {@code expected} of the fires that are due (a due time: the others cannot be
   * claimed), in key order: the order in which a batch locks its rows, as every batch of job rows
   * does, so that two batches never wait on each other in a cycle.
   */
  static List<Integer> dueInKeyOrder(List<JobRecord> expected) {
    List<Integer> order = new java.util.ArrayList<>();
    for (int i = 0; i < expected.size(); i++) {
      if (expected.get(i).dueTime() != null) {
        order.add(i);
      }
    }
    order.sort(java.util.Comparator.comparing(i -> expected.get(i).key()));
    return order;
  }

  /**
   * {@link #claimAll} in one statement, for a dialect whose UPDATE returns rows ({@link
   * Dialect#updateReturns}, PostgreSQL), with two or more fires: a {@code MATERIALIZED} common
   * table expression locks, in key order, the rows no other transaction holds ({@code FOR UPDATE
   * SKIP LOCKED}); the UPDATE joins them with the expected versions and due times (a {@code VALUES}
   * list) under the single claim's conditions, and returns the rows it claimed. Run in auto-commit:
   * one round trip with its commit where the transaction took four (the locking read, the batched
   * UPDATE, the read of the won rows, the commit). No statement of it waits for a lock (a held row
   * is skipped, a locked row is ours), so its change stamps are taken within the statement, just
   * before its commit. Answers in the order given, as {@link #claimAll} does.
   */
  public List<Optional<Claim>> claimAllReturning(
      Handle h, List<JobRecord> expected, String instance, Duration lease) throws SQLException {
    List<Optional<Claim>> out =
        new java.util.ArrayList<>(java.util.Collections.nCopies(expected.size(), Optional.empty()));
    List<Integer> order = dueInKeyOrder(expected);
    if (order.isEmpty()) {
      return out;
    }
    int n = order.size();
    Map<String, Integer> index = new java.util.HashMap<>();
    try (PositionalBatch q = claimAllReturning.get(n).prepare(h, dialect)) {
      q.text("instance", instance).number("lease", seconds(lease));
      for (int j = 0; j < n; j++) {
        JobRecord e = expected.get(order.get(j));
        q.text("k" + j, e.key()).bigint("v" + j, e.version()).number("d" + j, decimal(e.dueTime()));
        index.put(e.key(), order.get(j));
      }
      for (Claim c : q.query(ClusterTable::claimed)) {
        Integer i = index.get(c.row().key());
        if (i != null && c.row().version() == expected.get(i).version() + 1) {
          out.set(i, Optional.of(c));
        }
      }
    }
    return out;
  }

  /**
   * The statement of {@link #claimAllReturning} for {@code n} fires (parameters k, v and d 0..n-1).
   */
  private String claimAllReturningSql(int n) {
    StringBuilder values = new StringBuilder();
    for (int j = 0; j < n; j++) {
      values
          .append(j == 0 ? "(CAST(:k" : ", (CAST(:k")
          .append(j)
          .append(" AS VARCHAR), CAST(:v")
          .append(j)
          .append(" AS BIGINT), CAST(:d")
          .append(j)
          .append(" AS NUMERIC(28,9)))");
    }
    return "WITH locked AS MATERIALIZED (SELECT job_key AS locked_key FROM "
        + jobsTable
        + " WHERE job_key IN ("
        + PositionalBatch.parameters("k", n)
        + ") ORDER BY job_key FOR UPDATE SKIP LOCKED) "
        + claimSet
        + " FROM locked, (VALUES "
        + values
        + ") AS expected_fire (expected_key, expected_version, expected_due)"
        + claimWhere
            .replace(":key", "expected_key")
            .replace(":version", "expected_version")
            .replace(":due", "expected_due")
        + " AND job_key = locked_key RETURNING "
        + jobsTable
        + ".*";
  }

  /**
   * Locks the rows of {@code keys} (sorted, distinct) that no other transaction holds, until the
   * transaction ends; returns their keys. Rows another transaction holds, and keys without a row,
   * are left out.
   */
  private java.util.Set<String> lockInKeyOrder(Handle h, List<String> keys) {
    return new java.util.HashSet<>(
        JobTable.keysQuery(h, lockKeys, keys, ") ORDER BY job_key FOR UPDATE SKIP LOCKED")
            .mapTo(String.class)
            .list());
  }

  private static <S extends org.jdbi.v3.core.statement.SqlStatement<S>> S bindClaim(
      S s, JobRecord expected, String instance, Duration lease) {
    return s.bind("key", expected.key())
        .bind("version", expected.version())
        .bind("due", decimal(expected.dueTime()))
        .bind("instance", instance)
        .bind("lease", seconds(lease));
  }

  /**
   * The claim of {@code expected}'s fire if {@code instance} already holds it: a claim repeated
   * after its commit succeeded but its acknowledgement was lost.
   */
  public Optional<Claim> ownClaim(Handle h, JobRecord expected, String instance) {
    return h.createQuery(ownClaim)
        .bind("key", expected.key())
        .bind("instance", instance)
        .bind("version", expected.version() + 1)
        .bind("due", decimal(expected.dueTime()))
        .map((rs, ctx) -> claimed(rs))
        .findOne();
  }

  private static Claim claimed(ResultSet rs) throws SQLException {
    return new Claim(JobRows.read(rs), rs.getBoolean("recovery"));
  }

  /**
   * Extends to now + lease each claim {@code instance} holds on exactly the given fire (key →
   * claimed fire); returns how many. One batched statement, rows in key order, so a renewal and a
   * write-back batch (also in key order) never wait on each other in a cycle.
   */
  public int renew(Handle h, String instance, Map<String, Instant> claimedFires, Duration lease) {
    PreparedBatch batch = h.prepareBatch(renew);
    BigDecimal seconds = seconds(lease);
    for (Map.Entry<String, Instant> c : new TreeMap<>(claimedFires).entrySet()) {
      batch
          .bind("instance", instance)
          .bind("lease", seconds)
          .bind("key", c.getKey())
          .bind("fire", decimal(c.getValue()))
          .add();
    }
    int renewed = 0;
    for (int n : batch.execute()) {
      renewed += Math.max(n, 0);
    }
    return renewed;
  }

  /**
   * Clears {@code instance}'s claim on {@code claimedFire} of the job without a run (RUNNING back
   * to SCHEDULED, version kept); true if it held that claim.
   */
  public boolean release(Handle h, String key, String instance, Instant claimedFire) {
    return stamps
            .on(h)
            .bind(h.createUpdate(release))
            .bind("key", key)
            .bind("instance", instance)
            .bind("fire", decimal(claimedFire))
            .execute()
        == 1;
  }

  /**
   * Rows whose claim's lease has expired (RUNNING, or changed by another instance during the run
   * but still due), and RUNNING rows without a claim (left by a single-instance store), by key, at
   * most {@code limit}.
   */
  public List<JobRows.Row> expired(Handle h, int limit) {
    return h.createQuery(expired).bind("limit", limit).map((rs, ctx) -> JobRows.read(rs)).list();
  }

  /**
   * Unclaimed rows (not RUNNING, no lease) due more than {@code by} ago by the database clock, in
   * (due time, key) order strictly after {@code after} (null: from the earliest), at most {@code
   * limit}; the due-time index serves the range.
   */
  public List<JobRows.Row> overdue(Handle h, Duration by, WindowCursor after, int limit) {
    var q = h.createQuery(after == null ? overdue : overdueAfter);
    if (after != null) {
      q.bind("after", decimal(after.dueTime())).bind("after_key", after.key());
    }
    return q.bind("by", seconds(by)).bind("limit", limit).map((rs, ctx) -> JobRows.read(rs)).list();
  }

  /**
   * Registers the instance, started now; forgets instances silent for longer than {@code stale}.
   * Call in a transaction.
   */
  public void register(Handle h, String instance, Duration stale) {
    h.createUpdate(trimInstances).bind("stale", seconds(stale)).execute();
    if (h.createUpdate(registerAgain).bind("instance", instance).execute() == 0) {
      h.createUpdate(register).bind("instance", instance).execute();
    }
  }

  /** Records the instance's heartbeat; registers it again if its row is gone. */
  public void heartbeat(Handle h, String instance) {
    if (h.createUpdate(heartbeat).bind("instance", instance).execute() == 0) {
      h.createUpdate(register).bind("instance", instance).execute();
    }
  }

  /** Removes the instance. */
  public void deregister(Handle h, String instance) {
    h.createUpdate(deregister).bind("instance", instance).execute();
  }

  /** Registered instances and their last heartbeat, by id. */
  public Map<String, Instant> instances(Handle h) {
    Map<String, Instant> out = new LinkedHashMap<>();
    h.createQuery(instances)
        .map((rs, ctx) -> Map.entry(rs.getString("instance"), instant(rs, "last_heartbeat")))
        .forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  /** Instances that sent a heartbeat within {@code within}, by id. */
  public List<String> live(Handle h, Duration within) {
    return h.createQuery(liveInstances).bind("within", seconds(within)).mapTo(String.class).list();
  }
}
