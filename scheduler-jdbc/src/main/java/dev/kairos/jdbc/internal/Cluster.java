package dev.kairos.jdbc.internal;

import dev.kairos.StoreException;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.ClusterStore.Changes;
import dev.kairos.spi.ClusterStore.Claimed;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.WindowCursor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster half of the JDBC store: instances and heartbeats, claims and leases ({@link
 * ClusterTable}), the change feed ({@link ChangeFeed}) and the signal that announces it ({@link
 * ChangeSignal}), each call in a handle or transaction of its own. {@link JdbcJobStore} delegates
 * its {@code ClusterStore} methods here.
 *
 * <p>A claim that failed with an error is remembered ({@link #inDoubt}): its commit may have
 * succeeded with the acknowledgement lost, so when the engine retries it, a lost claim is checked
 * against the row and recognised as the instance's own instead of leaving the fire to its own lease
 * (which would delay it by a lease and flag it as a recovery).
 */
public final class Cluster implements AutoCloseable {
  /** Instances silent for longer are removed from {@code <prefix>instances} when one registers. */
  static final Duration FORGET_INSTANCES_AFTER = Duration.ofDays(1);

  /** A plain store warns at open if clustered instances sent a heartbeat within this. */
  static final Duration LIVE_WITHIN = Duration.ofMinutes(2);

  /** Most claims remembered as in doubt; more are never retried (a closed scheduler's). */
  private static final int MAX_IN_DOUBT = 10_000;

  private static final Logger log = LoggerFactory.getLogger(Cluster.class);

  private final Database database;
  private final Dialect dialect;
  private final ClusterTable table;
  private final ChangeFeed feed;
  private final ChangeFeed.Reader reader;
  private final ChangeSignal signal;
  private final Duration settle;

  /** Maps a row to its record, or to empty after logging that it cannot be read. */
  private final Function<JobRows.Row, Optional<JobRecord>> readable;

  /** Names of the concurrency limits whose row is known to exist. */
  private final Set<String> limitRows = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** The lock of a store that is not clustered on its tables (see {@link SingleInstanceGuard}). */
  private final SingleInstanceGuard guard;

  /** Claims (key@version) whose call failed: maybe committed, acknowledgement lost. */
  private final Set<String> inDoubt = ConcurrentHashMap.newKeySet();

  private Cluster(
      Database database,
      Dialect dialect,
      String prefix,
      ChangeSignal signal,
      SingleInstanceGuard guard,
      StoreSettings settings,
      Function<JobRows.Row, Optional<JobRecord>> readable) {
    this.database = database;
    this.guard = guard;
    this.dialect = dialect;
    this.table = new ClusterTable(prefix, dialect);
    this.feed = new ChangeFeed(prefix, dialect);
    this.reader = feed.reader();
    this.signal = signal;
    this.settle = settings.changeSettle();
    this.readable = readable;
  }

  /**
   * The cluster side of an open database. A clustered store over an embedded H2 file is refused
   * (the database is closed); a plain store warns if clustered instances are alive on its tables,
   * and every store on PostgreSQL or MariaDB/MySQL reports a plain store beside it ({@link
   * SingleInstanceGuard}).
   *
   * @param readable maps a row to its record, or to empty after logging that it cannot be read
   * @throws StoreException if cluster mode is asked for over an embedded H2 database
   */
  public static Cluster of(
      Database database,
      ConnectionSource source,
      StoreSettings settings,
      Function<JobRows.Row, Optional<JobRecord>> readable,
      Predicate<String> embeddedH2) {
    Dialect d = database.dialect();
    String prefix = settings.tablePrefix();
    // The URL the source was configured with, if it tells: the driver's own (metadata) URL drops
    // H2's settings, AUTO_SERVER=TRUE among them, which would make a shared file look embedded.
    String url = source.configuredUrl() != null ? source.configuredUrl() : database.url();
    if (settings.clustered() && d == Dialect.H2 && embeddedH2.test(url)) {
      database.close();
      throw new StoreException(
          "cluster mode needs a database several processes share (PostgreSQL, or an H2 server"
              + " URL), not the embedded H2 database "
              + url);
    }
    ChangeSignal signal =
        settings.clustered() && d == Dialect.POSTGRESQL
            ? ChangeSignal.postgres(database, source, prefix.toLowerCase(Locale.ROOT) + "changes")
            : ChangeSignal.polling();
    SingleInstanceGuard guard = SingleInstanceGuard.open(source, d, prefix, settings.clustered());
    Cluster c = new Cluster(database, d, prefix, signal, guard, settings, readable);
    if (!settings.clustered()) {
      c.warnIfClusterRuns(prefix);
    }
    return c;
  }

  private void warnIfClusterRuns(String prefix) {
    List<String> live =
        database.withHandle("reading the cluster's instances", h -> table.live(h, LIVE_WITHIN));
    if (!live.isEmpty()) {
      log.warn(
          "instances {} use tables {}* in cluster mode, but this store is not clustered: fires"
              + " run through it are not claimed and may run twice; build it with clustered(true)",
          live,
          prefix);
    }
  }

  /** Registers (or re-registers) an instance, started now by the database clock. */
  public void register(String instance) {
    database.inTransaction(
        "registering instance " + instance,
        h -> {
          table.register(h, instance, FORGET_INSTANCES_AFTER);
          return null;
        });
  }

  /**
   * Records the instance's heartbeat by the database clock; on H2, then checks that a restart of
   * the H2 server under the live instances left no sequence behind its values ({@link
   * Database#repairSequences}: one query).
   */
  public void heartbeat(String instance) {
    database.inTransaction(
        "recording the heartbeat of instance " + instance,
        h -> {
          table.heartbeat(h, instance);
          return null;
        });
    database.repairSequences();
  }

  /** Removes the instance. */
  public void deregister(String instance) {
    database.withHandle(
        "deregistering instance " + instance,
        h -> {
          table.deregister(h, instance);
          return null;
        });
  }

  /** Instances with a heartbeat within {@code within} by the database clock, sorted by id. */
  public List<String> liveInstances(Duration within) {
    return database.withHandle("reading the live instances", h -> table.live(h, within));
  }

  /** Registered instances and their last heartbeat by the database clock, by id. */
  public Map<String, Instant> instances() {
    return database.withHandle("reading the cluster's instances", table::instances);
  }

  /** Claims {@code expected}'s fire for {@code instance}; see {@link ClusterTable#claim}. */
  public Optional<Claimed> claim(JobRecord expected, String instance, Duration lease) {
    String what =
        "claiming job '" + expected.key() + "' (due " + expected.dueTime() + ") for " + instance;
    String claim = expected.key() + "@" + expected.version();
    boolean repeated = inDoubt.remove(claim);
    Optional<ClusterTable.Claim> won;
    try {
      won =
          dialect.updateReturns()
              ? database.withHandle(what, h -> table.claim(h, expected, instance, lease))
              : database.inTransaction(what, h -> table.claim(h, expected, instance, lease));
      if (won.isEmpty() && repeated) {
        won = database.withHandle(what, h -> table.ownClaim(h, expected, instance));
      }
    } catch (StoreException e) {
      if (inDoubt.size() >= MAX_IN_DOUBT) {
        inDoubt.clear();
      }
      inDoubt.add(claim);
      throw e;
    }
    if (won.isEmpty()) {
      return Optional.empty();
    }
    changed();
    boolean recovery = won.get().recovery();
    return readable.apply(won.get().row()).map(r -> new Claimed(r, recovery));
  }

  /**
   * Claims {@code expected}'s fire under a concurrency limit; see {@link ClusterTable#claimWithin}.
   * The limit's row is created, once per store object, in a transaction of its own (so that a race
   * of two first claims fails only that insert). A failed call puts the claim in doubt, as {@link
   * #claim} does.
   */
  public ClusterStore.LimitedClaim claimWithin(
      JobRecord expected, String instance, Duration lease, dev.kairos.ConcurrencyLimit limit) {
    if (!limitRows.contains(limit.name())) {
      ensureLimit(limit.name());
      limitRows.add(limit.name());
    }
    String what =
        "claiming job '"
            + expected.key()
            + "' (due "
            + expected.dueTime()
            + ") for "
            + instance
            + " within concurrency limit '"
            + limit.name()
            + "'";
    String claim = expected.key() + "@" + expected.version();
    boolean repeated = inDoubt.remove(claim);
    ClusterTable.LimitedClaim answer;
    try {
      answer =
          database.inTransaction(
              what,
              h -> {
                if (repeated) { // before the count: our own committed claim is not a rival
                  Optional<ClusterTable.Claim> own = table.ownClaim(h, expected, instance);
                  if (own.isPresent()) {
                    return new ClusterTable.LimitedClaim(own, false);
                  }
                }
                return table.claimWithin(h, expected, instance, lease, limit);
              });
    } catch (StoreException e) {
      if (inDoubt.size() >= MAX_IN_DOUBT) {
        inDoubt.clear();
      }
      inDoubt.add(claim);
      throw e;
    }
    if (answer.full()) {
      return ClusterStore.LimitedClaim.full();
    }
    if (answer.claim().isEmpty()) {
      return new ClusterStore.LimitedClaim(Optional.empty(), false);
    }
    changed();
    boolean recovery = answer.claim().get().recovery();
    return new ClusterStore.LimitedClaim(
        readable.apply(answer.claim().get().row()).map(r -> new Claimed(r, recovery)), false);
  }

  /**
   * In the caller's transaction: locks the limit's row (adding it if missing; a concurrent first
   * insert fails the transaction, which the engine retries) and tells whether the limit's live runs
   * in the cluster leave no permit ({@link ClusterTable#full}, every job's lease counted).
   */
  public boolean limitFull(Handle h, dev.kairos.ConcurrencyLimit limit) {
    return table.full(h, "", limit);
  }

  /**
   * Claims a backfill slot under a concurrency limit (see {@link
   * ClusterStore#claimBackfillWithin}): in one transaction, the limit's row locked and its live
   * runs counted ({@link ClusterTable#full}), then {@code claimSlot} (the slot's compare-and-set)
   * unless the limit is full.
   *
   * @param claimSlot claims the slot on the transaction's handle; true if it did
   */
  public ClusterStore.BackfillClaim claimBackfillWithin(
      String key,
      java.time.Instant fire,
      dev.kairos.ConcurrencyLimit limit,
      java.util.function.Predicate<Handle> claimSlot) {
    if (!limitRows.contains(limit.name())) {
      ensureLimit(limit.name());
      limitRows.add(limit.name());
    }
    return database.inTransaction(
        "claiming backfill slot "
            + fire
            + " of job '"
            + key
            + "' within concurrency limit '"
            + limit.name()
            + "'",
        h -> {
          if (table.full(h, "", limit)) {
            return ClusterStore.BackfillClaim.LIMIT_FULL;
          }
          return claimSlot.test(h)
              ? ClusterStore.BackfillClaim.CLAIMED
              : ClusterStore.BackfillClaim.LOST;
        });
  }

  /**
   * Inserts the limit's row if missing. A concurrent first claim's insert of the same name fails
   * one of the two transactions with a duplicate key; the second try then finds the row.
   */
  private void ensureLimit(String name) {
    String what = "adding the row of concurrency limit '" + name + "'";
    try {
      database.inTransaction(what, h -> ensured(h, name));
    } catch (StoreException raced) {
      database.inTransaction(what, h -> ensured(h, name));
    }
  }

  private Boolean ensured(Handle h, String name) {
    table.ensureLimit(h, name);
    return Boolean.TRUE;
  }

  /**
   * Claims several fires in one transaction; see {@link ClusterTable#claimAll}. A failed call puts
   * every claim of the batch in doubt, as {@link #claim} does for one.
   */
  public List<Optional<Claimed>> claimAll(
      List<JobRecord> expected, String instance, Duration lease) {
    Set<String> repeated = new java.util.HashSet<>();
    for (JobRecord r : expected) {
      if (inDoubt.remove(r.key() + "@" + r.version())) {
        repeated.add(r.key());
      }
    }
    List<Optional<ClusterTable.Claim>> won;
    String what = "claiming " + expected.size() + " job(s) for " + instance;
    try {
      if (dialect.updateReturns()
          && expected.stream().filter(r -> r.dueTime() != null).count() > 1) {
        won = database.withHandle(what, h -> table.claimAllReturning(h, expected, instance, lease));
        if (!repeated.isEmpty()) {
          List<Optional<ClusterTable.Claim>> w = won;
          database.withHandle(what, h -> ownClaims(h, expected, instance, w, repeated));
        }
      } else {
        won =
            database.inTransaction(
                what,
                h ->
                    ownClaims(
                        h,
                        expected,
                        instance,
                        table.claimAll(h, expected, instance, lease),
                        repeated));
      }
    } catch (StoreException e) {
      if (inDoubt.size() + expected.size() > MAX_IN_DOUBT) {
        inDoubt.clear();
      }
      expected.forEach(r -> inDoubt.add(r.key() + "@" + r.version()));
      throw e;
    }
    List<Optional<Claimed>> out = new java.util.ArrayList<>(won.size());
    boolean any = false;
    for (Optional<ClusterTable.Claim> c : won) {
      any |= c.isPresent();
      out.add(c.flatMap(w -> readable.apply(w.row()).map(r -> new Claimed(r, w.recovery()))));
    }
    if (any) {
      changed();
    }
    return out;
  }

  /**
   * Replaces in {@code won} each lost claim of a job in {@code repeated} (a claim repeated after a
   * failed call) by the claim {@code instance} may already hold on that fire; returns {@code won}.
   */
  private List<Optional<ClusterTable.Claim>> ownClaims(
      Handle h,
      List<JobRecord> expected,
      String instance,
      List<Optional<ClusterTable.Claim>> won,
      Set<String> repeated) {
    for (int i = 0; i < won.size() && !repeated.isEmpty(); i++) {
      if (won.get(i).isEmpty() && repeated.contains(expected.get(i).key())) {
        won.set(i, table.ownClaim(h, expected.get(i), instance));
      }
    }
    return won;
  }

  /** Extends the leases {@code instance} holds on these jobs; returns how many. */
  public int renewClaims(String instance, Map<String, Instant> claimedFires, Duration lease) {
    if (claimedFires.isEmpty()) {
      return 0;
    }
    return database.inTransaction(
        "renewing the leases of instance " + instance,
        h -> table.renew(h, instance, claimedFires, lease));
  }

  /** Ends a claim whose fire was not run; see {@link ClusterTable#release}. */
  public boolean release(String key, String instance, Instant claimedFire) {
    boolean released =
        database.withHandle(
            "releasing the claim of job '" + key + "'",
            h -> table.release(h, key, instance, claimedFire));
    if (released) {
      changed();
    }
    return released;
  }

  /** Jobs whose claim's lease has expired; see {@link ClusterTable#expired}. */
  public List<JobRecord> expiredClaims(int limit) {
    return readableOnly(
        database.withHandle("reading expired claims", h -> table.expired(h, limit)));
  }

  /** Unclaimed jobs overdue by more than {@code by}; see {@link ClusterTable#overdue}. */
  public ClusterStore.Overdue overdueJobs(Duration by, WindowCursor after, int limit) {
    List<JobRows.Row> rows =
        database.withHandle("reading overdue jobs", h -> table.overdue(h, by, after, limit));
    return new ClusterStore.Overdue(
        readableOnly(rows), rows.size() < limit ? null : rows.get(rows.size() - 1).cursor());
  }

  /** The change feed after {@code cursor}; see {@link ChangeFeed.Reader#read}. */
  public Changes changesSince(long cursor, int limit) {
    ChangeFeed.Page page =
        database.withHandle(
            "reading changes after " + cursor, h -> reader.read(h, cursor, limit, settle));
    return new Changes(readableOnly(page.changed()), page.deleted(), page.cursor());
  }

  /** Where a new reader of the feed starts; see {@link ChangeFeed#cursor}. */
  public long changeCursor() {
    return database.withHandle("reading the change cursor", h -> feed.cursor(h, settle));
  }

  /** Records a deletion for the feed, in the caller's transaction. */
  public void deleted(Handle h, String key) {
    feed.deleted(h, key);
  }

  /** Records deletions for the feed, in the caller's transaction. */
  public void deletedAll(Handle h, List<String> keys) {
    feed.deletedAll(h, keys);
  }

  /** Waits for a change signalled by any instance, up to {@code max}. */
  public boolean awaitChange(Duration max) throws InterruptedException {
    return signal.await(max);
  }

  /** A write committed: other instances will be told (cluster mode on PostgreSQL only). */
  public void changed() {
    signal.changed();
  }

  /** The database clock. */
  public Instant now() {
    return database.withHandle("reading the database clock", feed::now);
  }

  private List<JobRecord> readableOnly(List<JobRows.Row> rows) {
    List<JobRecord> out = new ArrayList<>(rows.size());
    for (JobRows.Row row : rows) {
      readable.apply(row).ifPresent(out::add);
    }
    return out;
  }

  /** Stops the signal: no more notifications sent, the listening connection closed. */
  @Override
  public void close() {
    signal.close();
    guard.close();
  }

  /** How changes are signalled. */
  @Override
  public String toString() {
    return signal.toString();
  }
}
